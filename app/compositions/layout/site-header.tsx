import { lazy, Suspense } from 'react'
import { Link } from 'react-router'
import { CartIcon } from '#app/components/ui/icons.tsx'
import { bookIdOfKey } from '#app/features/cart/bundle-book-key.ts'
import { useCartBookIds } from '#app/features/cart/use-cart.ts'
import { HeaderSearch } from '#app/features/search/components/header-search.tsx'
import { logoUrl, useStoreIdentity } from '#app/features/settings/store-settings.ts'
import { NavigationProgress } from './navigation-progress.tsx'

// The menus are server-rendered like the rest of the header, and work before their code arrives (native
// popovers; links and form posts). In the browser their code loads after the page's and hydrates them when
// it comes (React keeps a Suspense boundary's server HTML until then), so no page waits for it to hydrate.
const ThemeMenu = lazy(() => import('./header-menus.ts').then((menus) => ({ default: menus.ThemeMenu })))
const PersonMenu = lazy(() => import('./header-menus.ts').then((menus) => ({ default: menus.PersonMenu })))

const iconButton =
  'inline-flex size-10 items-center justify-center rounded-full text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-gray-800'

const sections = [
  { to: '/AllBooks', label: 'Browse' },
  { to: '/topics', label: 'Topics' },
  { to: '/AllBooks?sort=newest', label: 'New' },
  { to: '/search', label: 'Search' },
] as const

const sectionLink =
  'inline-block rounded-md px-3 py-2 text-slate-800 underline-offset-4 hover:bg-slate-100 hover:underline dark:text-slate-200 dark:hover:bg-gray-800'

/** The seed's header on every page; the badge counts the books in the cart (optimistically). */
export function SiteHeader() {
  const { storeName, logo } = useStoreIdentity()
  // Each book once, however many of the cart's bundles bring it (a bundle's books are `bundle:<id>:<book>`).
  const cartCount = new Set([...useCartBookIds()].map(bookIdOfKey)).size
  const books = cartCount === 1 ? 'book' : 'books'
  return (
    <header className="border-b border-slate-200 bg-slate-50 dark:border-gray-700 dark:bg-gray-900">
      {/* Fixed along the top of the window; in the header's landmark for assistive technology. */}
      <NavigationProgress />
      <nav
        aria-label="Main"
        className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-4 px-4 py-3"
      >
        {/* The store's name from its settings ('CodeBook' until the owner names it), beside the owner's logo or
            the seed's round one: the name is the link's text, so the picture is decoration (alt=""). */}
        <Link to="/" className="flex min-w-0 items-center gap-3 rounded-lg">
          {logo ? (
            <picture className="shrink-0">
              <source type="image/webp" srcSet={logoUrl(logo.webp)} />
              <img
                src={logoUrl(logo.png)}
                alt=""
                width={Math.round((logo.width * 40) / logo.height)}
                height={40}
                className="h-10 w-auto max-w-60"
              />
            </picture>
          ) : (
            <img src="/logo.svg" alt="" width={40} height={40} className="size-10" />
          )}
          <span className="text-2xl font-semibold break-words">{storeName}</span>
        </Link>
        <div className="flex items-center gap-1">
          <Suspense fallback={<span className="size-10" />}>
            <ThemeMenu buttonClassName={iconButton} />
          </Suspense>
          <HeaderSearch buttonClassName={iconButton} />
          <Link to="/cart" className={`${iconButton} relative`} aria-label={`Cart, ${cartCount} ${books}`}>
            <CartIcon />
            {/* The number of books in the cart; an empty cart shows none (a red '0' reads as an alert). */}
            {cartCount > 0 ? (
              <span
                aria-hidden="true"
                className="absolute -top-0.5 -right-0.5 min-w-5 rounded-full bg-rose-600 px-1 text-center text-xs leading-5 font-semibold text-white"
              >
                {cartCount}
              </span>
            ) : null}
          </Link>
          <Suspense fallback={<span className="size-10" />}>
            <PersonMenu buttonClassName={iconButton} />
          </Suspense>
        </div>
      </nav>
      {/* Where to go, visible at every width (issue 34): a row of its own under the seed's header. */}
      <nav aria-label="Sections" className="border-t border-slate-200 dark:border-gray-700">
        <ul className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-1 px-2 py-1 text-sm font-medium sm:px-4">
          {sections.map((section) => (
            <li key={section.to}>
              <Link to={section.to} className={sectionLink}>
                {section.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
    </header>
  )
}
