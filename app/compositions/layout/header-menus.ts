// The header's two menus, in one module so they arrive in one file (loaded by `SiteHeader` after the page).
export { ThemeMenu } from '#app/features/theme/components/theme-menu.tsx'
export { PersonMenu } from './person-menu.tsx'
