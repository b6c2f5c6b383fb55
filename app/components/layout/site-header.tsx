import { Link } from 'react-router'
import { CartIcon, GearIcon, PersonIcon } from '#app/components/ui/icons.tsx'
import { HeaderSearch } from '#app/features/search/components/header-search.tsx'

const iconButton =
  'inline-flex size-10 items-center justify-center rounded-full text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-gray-800'

/**
 * The seed's header on every page. The gear, search and person controls are real buttons with names now;
 * their menus arrive with the cart/search/identity work. The badge counts the books in the cart.
 */
export function SiteHeader({ cartCount }: { cartCount: number }) {
  const books = cartCount === 1 ? 'book' : 'books'
  return (
    <header className="border-b border-slate-200 bg-slate-50 dark:border-gray-700 dark:bg-gray-900">
      <nav aria-label="Main" className="mx-auto flex max-w-7xl items-center justify-between gap-4 px-4 py-3">
        <Link to="/" className="flex items-center gap-3 rounded-lg">
          <img src="/logo.svg" alt="" width={40} height={40} className="size-10" />
          <span className="text-2xl font-semibold">CodeBook</span>
        </Link>
        <div className="flex items-center gap-1">
          <button type="button" className={iconButton} aria-label="Display settings">
            <GearIcon />
          </button>
          <HeaderSearch buttonClassName={iconButton} />
          <Link
            to="/CartDetails"
            className={`${iconButton} relative`}
            aria-label={`Cart, ${cartCount} ${books}`}
          >
            <CartIcon />
            <span
              aria-hidden="true"
              className="absolute -top-0.5 -right-0.5 min-w-5 rounded-full bg-rose-600 px-1 text-center text-xs leading-5 font-semibold text-white"
            >
              {cartCount}
            </span>
          </Link>
          <button
            type="button"
            className={iconButton}
            aria-label="Account menu"
            aria-haspopup="menu"
            aria-expanded="false"
          >
            <PersonIcon />
          </button>
        </div>
      </nav>
    </header>
  )
}
