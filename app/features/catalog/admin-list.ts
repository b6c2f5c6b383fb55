/** The back office's book list: its sorts and limits (the page's controls use them too). */
export const ADMIN_SORTS = ['title', 'newest', 'price', 'status'] as const
export type AdminSort = (typeof ADMIN_SORTS)[number]
export const ADMIN_PAGE_SIZE = 50
export const ADMIN_QUERY_MAX = 100
