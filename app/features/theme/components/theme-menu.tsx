import { useFetcher, useLocation } from 'react-router'
import { GearIcon } from '#app/components/ui/icons.tsx'
import { MenuButton, menuItemClass } from '#app/components/ui/menu-button.tsx'
import { THEME_ACTION, themeOptions, useTheme } from '../theme.ts'

/** The gear: Light / Dark / System, saved by a form post (works without JavaScript), applied at once with it. */
export function ThemeMenu({ buttonClassName }: { buttonClassName: string }) {
  const fetcher = useFetcher({ key: 'theme' })
  const location = useLocation()
  const theme = useTheme()
  const formId = 'theme-form'
  return (
    <>
      <fetcher.Form id={formId} method="post" action={THEME_ACTION} hidden>
        <input type="hidden" name="redirectTo" value={`${location.pathname}${location.search}`} />
      </fetcher.Form>
      <MenuButton label="Display settings" icon={<GearIcon />} buttonClassName={buttonClassName}>
        {themeOptions.map((option) => (
          <button
            key={option.value}
            type="submit"
            form={formId}
            name="theme"
            value={option.value}
            role="menuitemradio"
            aria-checked={theme === option.value}
            className={menuItemClass}
          >
            <span aria-hidden="true" className="w-4 text-blue-700 dark:text-sky-300">
              {theme === option.value ? '✓' : ''}
            </span>
            {option.label}
          </button>
        ))}
      </MenuButton>
    </>
  )
}
