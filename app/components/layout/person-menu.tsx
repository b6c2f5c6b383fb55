import { Link } from 'react-router'
import { PersonIcon } from '#app/components/ui/icons.tsx'
import { MenuButton, menuItemClass } from '#app/components/ui/menu-button.tsx'

/** The person icon's menu. Signed-out items for now; the signed-in ones arrive with identity. */
export function PersonMenu({ buttonClassName }: { buttonClassName: string }) {
  const items = [
    { to: '/AllBooks', label: 'All eBooks' },
    { to: '/login', label: 'Login' },
    { to: '/Register', label: 'Register' },
  ]
  return (
    <MenuButton label="Account menu" icon={<PersonIcon />} buttonClassName={buttonClassName}>
      {items.map((item) => (
        <Link key={item.to} to={item.to} role="menuitem" className={menuItemClass}>
          {item.label}
        </Link>
      ))}
    </MenuButton>
  )
}
