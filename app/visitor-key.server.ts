import { parse } from 'cookie'
import { CART_COOKIE_NAMES, getVisitorCartBookIds } from '#app/features/cart/visitor-cart.server.ts'
import { CURRENCY_COOKIE } from '#app/features/currency/buyer-currency.server.ts'
import { memoizeLocales } from '#app/features/locale/locale-memo.server.ts'
import { readTheme, THEME_COOKIE } from '#app/features/theme/theme.server.ts'
import type { Theme } from '#app/features/theme/theme.ts'
import {
  getVisitorWishlistBookIds,
  WISHLIST_COOKIE_NAMES,
} from '#app/features/wishlist/visitor-wishlist.server.ts'
import type { AppContext } from '#app/server/context.server.ts'

/**
 * What a page reads of its visitor besides their session: the theme, the books in the cart and the locale
 * dates are written in. The root loader renders every page from it, and the host's page cache keys on it
 * (server/page-cache.ts), so two visitors without a session whose keys are equal are shown identical HTML. A
 * page that comes to depend on another per-visitor input adds it here, with its cookie in PAGE_VISITOR_COOKIES
 * (or its header in PAGE_VISITOR_HEADERS); a cookie left out of that list keeps its visitors out of the page
 * cache.
 */
export type PageVisitor = {
  theme: Theme
  cartBookIds: string[]
  /** The books on the visitor's wishlist: the hearts on cards and book pages (issue 30). */
  wishlistBookIds: string[]
  locale: string
}

type Services = Pick<AppContext, 'db' | 'env' | 'authSecret'>

/**
 * One per process rather than in the services container: it remembers a pure function of a
 * header, which no test needs to replace, and each cached page's key reads it (issue 35).
 */
const resolveLocale = memoizeLocales()

/**
 * The cookies whose whole effect on a page is in PageVisitor; and the buyer's currency, which changes only pages
 * that are never shared (the cart and the checkout say `Cache-Control: private`; the catalogue's pages are in the
 * base currency for everyone: decision 040), so that choosing one does not cost a buyer the cache everywhere.
 */
export const PAGE_VISITOR_COOKIES: ReadonlySet<string> = new Set([
  THEME_COOKIE,
  CURRENCY_COOKIE,
  CART_COOKIE_NAMES.plain,
  CART_COOKIE_NAMES.secure,
  WISHLIST_COOKIE_NAMES.plain,
  WISHLIST_COOKIE_NAMES.secure,
])

/**
 * The request headers besides cookies whose whole effect on a page is in PageVisitor: the host hands them to
 * `visitorKey`, and a page's document says it varies on them (app/entry.server.tsx).
 */
export const PAGE_VISITOR_HEADERS = ['Accept-Language'] as const

/**
 * The theme, the cart, the wishlist and the locale of the visitor (`userId`: the signed-in user, whose cart and
 * wishlist are their account's).
 */
export async function readPageVisitor(
  request: Pick<Request, 'headers'>,
  services: Services,
  userId: string | undefined,
): Promise<PageVisitor> {
  const [cartBookIds, wishlistBookIds] = await Promise.all([
    getVisitorCartBookIds(request, services, userId),
    getVisitorWishlistBookIds(request, services, userId),
  ])
  return {
    theme: readTheme(request),
    cartBookIds,
    wishlistBookIds,
    // Resolved, not as sent: the many spellings of a header that mean the same locale share a key.
    locale: resolveLocale(request.headers.get('Accept-Language')),
  }
}

/**
 * The page cache's key for the visitor behind `request` (the cache adds the URL), or undefined when the page
 * must be rendered for them alone: they send a cookie the key does not capture, a session's included. Only
 * the request's headers are read: the page cache hands in no whole Request, whose making cost a cached page
 * a good part of its time (issue 35).
 */
export async function visitorKey(
  request: Pick<Request, 'headers'>,
  services: Services,
): Promise<string | undefined> {
  const names = Object.keys(parse(request.headers.get('Cookie') ?? ''))
  if (!names.every((name) => PAGE_VISITOR_COOKIES.has(name))) return undefined
  const { theme, cartBookIds, wishlistBookIds, locale } = await readPageVisitor(request, services, undefined)
  const cart = [...cartBookIds].sort().join(',')
  // A visitor without a wishlist keeps the key they had before wishlists existed.
  const wished = wishlistBookIds.length ? `\nwished:${[...wishlistBookIds].sort().join(',')}` : ''
  return `${theme}\n${locale}\n${cart}${wished}`
}
