import { Suspense, useEffect, type ReactNode } from 'react'
import { data, isRouteErrorResponse, Links, Meta, Outlet, Scripts, ScrollRestoration } from 'react-router'
import { cartAddedMiddleware, readCartAdded } from '#app/features/cart/added-notice.server.ts'
import type { RootCartData } from '#app/features/cart/use-cart.ts'
import type { RootWishlistData } from '#app/features/wishlist/use-wishlist.ts'
import { getSessionUser, sessionCookieMiddleware } from '#app/features/identity/session.server.ts'
import type { RootUserData } from '#app/features/identity/use-user.ts'
import { UnverifiedEmailBanner } from '#app/features/identity/components/unverified-email-banner.tsx'
import { readOwnedBookIds } from '#app/features/library/library.server.ts'
import { revalidateAfterCheckoutPost } from '#app/features/orders/checkout-revalidation.ts'
import type { RootLibraryData } from '#app/features/library/use-owned-books.ts'
import type { RootLocaleData } from '#app/features/locale/date-format.ts'
import { useTheme, type Theme } from '#app/features/theme/theme.ts'
import { readStoreSettings } from '#app/features/settings/store-settings.server.ts'
import { storeIdentity, type RootStoreData } from '#app/features/settings/store-settings.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readPageVisitor } from '#app/visitor-key.server.ts'
import { GeneralErrorBoundary, type ErrorData } from '#app/components/error-boundary.tsx'
import { errorPageMeta } from '#app/features/seo/meta.ts'
import { SiteFooter } from '#app/compositions/layout/site-footer.tsx'
import { SiteHeader } from '#app/compositions/layout/site-header.tsx'
import { usePendingNavigation } from '#app/compositions/layout/navigation-progress.tsx'
import { useNonce } from '#app/components/nonce.tsx'
import stylesheet from './app.css?url'
import type { Route } from './+types/root'

export const links: Route.LinksFunction = () => [
  { rel: 'stylesheet', href: stylesheet },
  { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
]

/** Only when the root itself fails (the database is down): every page has its own `meta`. */
export const meta: Route.MetaFunction = ({ error }) => {
  if (!error) return []
  const title = isRouteErrorResponse(error)
    ? (error.data as Partial<ErrorData> | undefined)?.title
    : undefined
  return errorPageMeta(title ?? 'Something went wrong')
}

export const middleware: Route.MiddlewareFunction[] = [sessionCookieMiddleware, cartAddedMiddleware]

export async function loader({ request, context }: Route.LoaderArgs) {
  const app = getAppContext(context)
  const { sessionUser, theme, cartBookIds, wishlistBookIds, locale, ownedBookIds, store } = await readVisitor(
    request,
    context,
  ).catch((error: unknown) => {
    // Every page needs who the visitor is; without the database the honest answer is 'unavailable', not a
    // 500 that reads like a bug (a load balancer retries elsewhere on 503).
    app.logger.error({ err: error }, 'the visitor could not be read: database unavailable?')
    throw data(
      {
        title: 'CodeBook is temporarily unavailable',
        message:
          'We cannot reach our database just now. Nothing you saved is lost; please try again in a minute.',
      },
      { status: 503, headers: { 'Retry-After': '10' } },
    )
  })
  // A guest's email is a placeholder Better Auth made up: not the browser's business.
  const user = sessionUser
    ? {
        email: sessionUser.isGuest ? '' : sessionUser.email,
        isGuest: sessionUser.isGuest,
        isAdmin: sessionUser.isAdmin,
        emailVerified: sessionUser.emailVerified,
      }
    : null
  // Canonical and Open Graph URLs are absolute, on the configured origin (features/seo/meta.ts).
  const publicOrigin = app.env.publicUrl.origin
  const cartAddedBookId = readCartAdded(request)
  return {
    theme,
    locale,
    cartBookIds,
    cartAddedBookId,
    wishlistBookIds,
    user,
    ownedBookIds,
    publicOrigin,
    store,
  } satisfies RootCartData &
    RootWishlistData &
    RootUserData &
    RootLibraryData &
    RootStoreData &
    RootLocaleData & { theme: Theme; publicOrigin: string }
}

/**
 * Who the visitor is, their theme, cart and locale (what the page cache keys on for visitors without a session:
 * app/visitor-key.server.ts) and which books they own.
 */
async function readVisitor(request: Request, context: Route.LoaderArgs['context']) {
  const app = getAppContext(context)
  const sessionUser = await getSessionUser({ request, context })
  const [{ theme, cartBookIds, wishlistBookIds, locale }, ownedBookIds, settings] = await Promise.all([
    readPageVisitor(request, app, sessionUser?.id),
    sessionUser && !sessionUser.isGuest ? readOwnedBookIds(context, app.db, sessionUser.id) : [],
    readStoreSettings(app.db),
  ])
  return {
    sessionUser,
    theme,
    cartBookIds,
    wishlistBookIds,
    locale,
    ownedBookIds,
    store: storeIdentity(settings),
  }
}

export const shouldRevalidate = revalidateAfterCheckoutPost

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce()
  const theme = useTheme()
  const pending = usePendingNavigation()
  return (
    <html lang="en" data-theme={theme}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <Meta />
        <Links />
      </head>
      <body className="flex min-h-screen flex-col">
        <a
          href="#main"
          className="sr-only rounded bg-blue-700 px-4 py-2 text-white focus:not-sr-only focus:absolute focus:top-2 focus:left-2"
        >
          Skip to content
        </a>
        <SiteHeader />
        <UnverifiedEmailBanner />
        {/* Each region its own Suspense boundary (nothing in them suspends on the server): React hydrates the
            page in slices — the layout, then the page's content, then the footer — each committed in a task
            of its own, instead of the whole document in one long one (issue 35). */}
        <main id="main" className="flex-1" aria-busy={pending || undefined}>
          <Suspense>{children}</Suspense>
        </main>
        <Suspense>
          <SiteFooter />
        </Suspense>
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  )
}

export default function App() {
  // Marks the page as interactive: end-to-end tests wait for it before using JavaScript-only behaviour.
  useEffect(() => {
    document.documentElement.dataset.hydrated = 'true'
  }, [])
  return <Outlet />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
