import { kebabSlug } from './slug.ts'

/**
 * The back office's book form, as the browser needs it: the limits its HTML constraints come from, the field
 * names and options. The schema the actions check a post with (book-form.server.ts) uses the same limits; it
 * stays on the server so that zod never reaches the browser's bundle.
 */
export const BOOK_FORM_LIMITS = {
  titleMax: 200,
  authorMax: 200,
  slugMax: 100,
  descriptionMax: 10_000,
  priceMaxCents: 100_000_00,
  topicsMax: 12,
  topicMax: 40,
  featuredPositionMax: 999,
} as const

export const BOOK_STATUS_OPTIONS = ['draft', 'published', 'archived'] as const
export const BOOK_LEVEL_OPTIONS = ['none', 'beginner', 'intermediate', 'advanced'] as const
/** The edit page's status buttons: which status each leads to, from which, and its audit action. */
export const STATUS_ACTIONS = {
  archive: { to: 'archived', from: ['published', 'draft'], action: 'book.archive' },
  unarchive: { to: 'published', from: ['archived'], action: 'book.unarchive' },
  publish: { to: 'published', from: ['draft'], action: 'book.publish' },
} as const satisfies Record<
  string,
  { to: (typeof BOOK_STATUS_OPTIONS)[number]; from: (typeof BOOK_STATUS_OPTIONS)[number][]; action: string }
>
export type StatusAction = keyof typeof STATUS_ACTIONS

export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/

export type BookField = (typeof bookFields)[number]
export type BookFieldErrors = Partial<Record<BookField | 'form', string>>
/** What was typed, as typed: shown again with the errors so that nothing is lost. */
export type BookFormValues = Partial<Record<BookField, string>>

/** A price in cents as the form shows it, in dollars: 2999 → '29.99'. */
export function centsToPrice(cents: number): string {
  return (cents / 100).toFixed(2)
}

export const bookFields = [
  'title',
  'slug',
  'author',
  'description',
  'price',
  'pwywMin',
  'currency',
  'topics',
  'level',
  'featured',
  'featuredPosition',
  'bestSeller',
  'status',
] as const

/** A kebab-case slug from a title ('Learn Rust, Fast!' → 'learn-rust-fast'), for the form's suggestion. */
export function slugify(title: string): string {
  return kebabSlug(title, BOOK_FORM_LIMITS.slugMax)
}
