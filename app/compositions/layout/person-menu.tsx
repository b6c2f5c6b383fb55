import { Link, useFetcher, useLocation } from 'react-router'
import { PersonIcon } from '#app/components/ui/icons.tsx'
import { MenuButton, menuItemClass } from '#app/components/ui/menu-button.tsx'
import { useOptionalUser } from '#app/features/identity/use-user.ts'

const LOGOUT_FORM = 'logout-form'

/**
 * The person icon's menu. Signed out: All eBooks, Login, Register. Signed in: the email, All eBooks,
 * My Library, My orders, My Wishlist, Account settings, Log out. A guest: 'Guest', All eBooks, Register (to keep the cart), Log out. Log out is a form post
 * (JavaScript off: the action redirects back here); with JavaScript a fetcher, whose failure is shown
 * beside the menu while the visitor stays signed in.
 */
export function PersonMenu({ buttonClassName }: { buttonClassName: string }) {
  const user = useOptionalUser()
  const location = useLocation()
  const logout = useFetcher<{ error?: string }>({ key: 'logout' })
  const here = `${location.pathname}${location.search}`
  const links = user
    ? [
        { to: '/AllBooks', label: 'All eBooks' },
        ...(user.isGuest
          ? [{ to: '/Register', label: 'Register' }]
          : [
              { to: '/account/library', label: 'My Library' },
              { to: '/account/orders', label: 'My orders' },
              { to: '/account/wishlist', label: 'My Wishlist' },
              { to: '/account', label: 'Account settings' },
              ...(user.isAdmin ? [{ to: '/admin', label: 'Back office' }] : []),
            ]),
      ]
    : [
        { to: '/AllBooks', label: 'All eBooks' },
        { to: `/login${loginQuery(here)}`, label: 'Login' },
        { to: '/Register', label: 'Register' },
      ]
  const items = (
    <>
      {links.map((item) => (
        <Link key={item.label} to={item.to} role="menuitem" className={menuItemClass}>
          {item.label}
        </Link>
      ))}
      {user ? (
        <button type="submit" form={LOGOUT_FORM} role="menuitem" className={menuItemClass}>
          Log out
        </button>
      ) : null}
    </>
  )
  const logoutError = logout.state === 'idle' ? logout.data?.error : undefined
  return (
    <div className="relative">
      {user ? (
        <logout.Form id={LOGOUT_FORM} method="post" action="/logout" hidden>
          <input type="hidden" name="redirectTo" value={here} />
        </logout.Form>
      ) : null}
      <MenuButton label="Account menu" icon={<PersonIcon />} buttonClassName={buttonClassName}>
        {user ? (
          <div role="group" aria-labelledby="person-menu-who">
            <p
              id="person-menu-who"
              className="truncate border-b border-slate-200 px-3 py-2 text-sm font-semibold dark:border-gray-700"
            >
              {user.isGuest ? 'Guest' : user.email}
            </p>
            {items}
          </div>
        ) : (
          items
        )}
      </MenuButton>
      {logoutError ? (
        <p
          role="alert"
          className="absolute top-full right-0 z-20 mt-2 w-64 rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-800 shadow-lg dark:border-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {logoutError}
        </p>
      ) : null}
    </div>
  )
}

/** Login from a page comes back to it (not from the account pages themselves). */
function loginQuery(here: string) {
  if (/^\/(login|register|logout)\b/i.test(here) || here === '/') return ''
  return `?${new URLSearchParams({ redirectTo: here })}`
}
