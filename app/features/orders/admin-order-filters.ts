/**
 * The rules of the orders back office's forms that the browser needs too (as HTML constraints and labels);
 * the server checks them again with zod (admin-order-filters.server.ts), which stays out of the browser
 * bundle (zod probes `new Function`, which the Content-Security-Policy refuses).
 */

/** The order statuses an admin may filter by (the database's own list). */
export const ORDER_STATUS_OPTIONS = ['pending', 'paid', 'failed', 'refunded'] as const

export const BUYER_FILTER_MAX_LENGTH = 254

export const REFUND_REASON_MAX_LENGTH = 500

/** What the refund form can give back: the rest of the whole order, the books ticked, or an amount. */
export const REFUND_SCOPES = ['everything', 'lines', 'amount'] as const

export type OrderFilterField = 'status' | 'from' | 'to' | 'buyer' | 'book'

/** The query string for these filters (empty ones left out), for links: pages, the CSV export. */
export function orderFiltersQuery(values: Partial<Record<OrderFilterField, string>>): URLSearchParams {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(values)) if (value) params.set(key, value)
  return params
}
