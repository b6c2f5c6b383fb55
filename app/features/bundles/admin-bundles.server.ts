import { and, asc, desc, eq, inArray, ne, sql } from 'drizzle-orm'
import { z } from 'zod'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import { kebabSlug } from '#app/features/catalog/slug.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { forgetCarts } from '#app/features/cart/cart.server.ts'
import {
  books,
  bundleBooks,
  bundles,
  cartBundles,
  orderItems,
  orders,
} from '#app/server/db/schema/index.server.ts'
import { bundleFields, type BundleField } from './bundle-fields.ts'

/** The back office's bundles (issue 30): made and changed with their books and price, every change audited. */

export type { BundleField }
export type BundleFieldErrors = Partial<Record<BundleField | 'form', string>>

export const MAX_BUNDLE_BOOKS = 20

const BundleFormSchema = z.object({
  title: z.string().trim().min(1, 'Enter a title.').max(200, 'At most 200 characters.'),
  slug: z
    .string()
    .trim()
    .toLowerCase()
    .max(80, 'At most 80 characters.')
    .refine((value) => value === '' || /^[a-z0-9]+(-[a-z0-9]+)*$/.test(value), {
      message: 'Lower-case letters, digits and single hyphens (e.g. rust-starter-pack), or leave it empty.',
    }),
  description: z.string().trim().max(2000, 'At most 2,000 characters.'),
  price: z
    .string()
    .trim()
    .regex(/^\d{1,5}(\.\d{1,2})?$/, 'Enter a price in dollars, e.g. 39 or 39.99 (at most 99999.99).')
    .transform((value) => Math.round(Number(value) * 100))
    .refine((cents) => cents > 0, 'A bundle costs something: enter a price above 0.'),
  books: z
    .string()
    .transform((value) => [
      ...new Set(
        value
          .split(/[\s,]+/)
          .map((slug) => slug.trim().toLowerCase())
          .filter(Boolean),
      ),
    ])
    .refine((slugs) => slugs.length >= 2, 'Name at least two books, by their slugs.')
    .refine((slugs) => slugs.length <= MAX_BUNDLE_BOOKS, `At most ${MAX_BUNDLE_BOOKS} books.`),
  active: z.boolean(),
})

export type BundleInput = z.output<typeof BundleFormSchema>

/** The form's fields as typed (an unticked box is ''), to show again beside their errors. */
export function bundleFormValues(form: FormData): Record<BundleField, string> {
  return Object.fromEntries(
    bundleFields.map((name) => [name, String(form.get(name) ?? '').slice(0, 5000)]),
  ) as Record<BundleField, string>
}

export function parseBundleForm(
  form: FormData,
):
  | { ok: true; bundle: BundleInput }
  | { ok: false; errors: BundleFieldErrors; values: Record<string, string> } {
  const values = bundleFormValues(form)
  const parsed = BundleFormSchema.safeParse({ ...values, active: form.get('active') === 'on' })
  if (parsed.success) return { ok: true, bundle: parsed.data }
  const errors: BundleFieldErrors = {}
  for (const issue of parsed.error.issues) {
    const name = issue.path[0] as BundleField
    errors[name] ??= issue.message
  }
  return { ok: false, errors, values }
}

/**
 * Makes a bundle (`bundleId` null) or changes one, with its books in the order named, and its audit record, in
 * one transaction. Refused with the field's message: an unknown book, books in another currency than the
 * others, a price not below the books' prices together (a bundle is a saving), a slug taken by another bundle.
 */
export async function saveBundle(
  db: Db,
  actor: Actor,
  bundleId: string | null,
  input: BundleInput,
): Promise<
  | { ok: true; id: string; slug: string }
  | { ok: false; errors: BundleFieldErrors }
  | { ok: false; notFound: true }
> {
  const rows = await db
    .select({ id: books.id, slug: books.slug, priceCents: books.priceCents, currency: books.currency })
    .from(books)
    .where(inArray(books.slug, input.books))
  const unknown = input.books.filter((slug) => !rows.some((row) => row.slug === slug))
  if (unknown.length) return { ok: false, errors: { books: `No book has the slug ${unknown.join(', ')}.` } }
  const ordered = input.books.map((slug) => rows.find((row) => row.slug === slug)!)
  const currencies = new Set(ordered.map((row) => row.currency))
  if (currencies.size > 1)
    return { ok: false, errors: { books: 'These books are priced in different currencies.' } }
  const separate = ordered.reduce((total, row) => total + row.priceCents, 0)
  if (input.price >= separate)
    return {
      ok: false,
      errors: { price: `The books cost ${(separate / 100).toFixed(2)} together: a bundle must cost less.` },
    }
  const slug = input.slug || kebabSlug(input.title, 80) || 'bundle'
  const [taken] = await db
    .select({ id: bundles.id })
    .from(bundles)
    .where(and(eq(bundles.slug, slug), bundleId ? ne(bundles.id, bundleId) : undefined))
    .limit(1)
  if (taken) return { ok: false, errors: { slug: `Another bundle has the address /bundles/${slug}.` } }
  const values = {
    slug,
    title: input.title,
    description: input.description,
    priceCents: input.price,
    currency: [...currencies][0]!,
    active: input.active,
  }
  const result = await db.transaction(async (tx) => {
    const [saved] = bundleId
      ? await tx
          .update(bundles)
          .set({ ...values, updatedAt: new Date() })
          .where(eq(bundles.id, bundleId))
          .returning({ id: bundles.id })
      : await tx.insert(bundles).values(values).returning({ id: bundles.id })
    if (!saved) return { ok: false as const, notFound: true as const }
    await tx.delete(bundleBooks).where(eq(bundleBooks.bundleId, saved.id))
    await tx
      .insert(bundleBooks)
      .values(ordered.map((row, position) => ({ bundleId: saved.id, bookId: row.id, position })))
    await recordAudit(tx, {
      actor,
      action: bundleId ? 'bundle.update' : 'bundle.create',
      entityType: 'bundle',
      entityId: saved.id,
      after: { ...values, books: input.books },
    })
    return { ok: true as const, id: saved.id, slug }
  })
  // The carts holding the bundle list its books (the header's count, the cart's lines): they read it again.
  if (result.ok) {
    const holding = await db
      .select({ cartId: cartBundles.cartId })
      .from(cartBundles)
      .where(eq(cartBundles.bundleId, result.id))
    forgetCarts(db, ...holding.map((row) => row.cartId))
  }
  return result
}

/** A bundle as its edit form shows it: the fields as typed, the books as their slugs one per line. */
export async function getBundleForEdit(db: Db, bundleId: string) {
  const [bundle] = await db.select().from(bundles).where(eq(bundles.id, bundleId)).limit(1)
  if (!bundle) return null
  const slugs = await db
    .select({ slug: books.slug })
    .from(bundleBooks)
    .innerJoin(books, eq(books.id, bundleBooks.bookId))
    .where(eq(bundleBooks.bundleId, bundleId))
    .orderBy(asc(bundleBooks.position))
  return {
    id: bundle.id,
    slug: bundle.slug,
    values: {
      title: bundle.title,
      slug: bundle.slug,
      description: bundle.description,
      price: (bundle.priceCents / 100).toFixed(2),
      books: slugs.map((row) => row.slug).join('\n'),
      active: bundle.active ? 'on' : '',
    } satisfies Record<BundleField, string>,
  }
}

/**
 * Every bundle, newest first, with its books and what its paid orders brought in: the sum of the paid prices
 * of the lines bought in it (each book's share of the bundle, less any coupon) — revenue by bundle.
 */
export async function listAdminBundles(db: Db) {
  const sold = db
    .select({
      bundleId: orderItems.bundleId,
      revenueCents: sql<number>`sum(${orderItems.priceCents})`.mapWith(Number).as('revenue_cents'),
      paidOrders: sql<number>`count(distinct ${orderItems.orderId})`.mapWith(Number).as('paid_orders'),
    })
    .from(orderItems)
    .innerJoin(orders, and(eq(orders.id, orderItems.orderId), eq(orders.status, 'paid')))
    .where(sql`${orderItems.bundleId} is not null`)
    .groupBy(orderItems.bundleId)
    .as('sold')
  return db
    .select({
      id: bundles.id,
      slug: bundles.slug,
      title: bundles.title,
      priceCents: bundles.priceCents,
      currency: bundles.currency,
      active: bundles.active,
      titles: sql<string>`coalesce((select string_agg(${books.title}, '; ' order by ${bundleBooks.position}) from ${bundleBooks} join ${books} on ${books.id} = ${bundleBooks.bookId} where ${bundleBooks.bundleId} = ${bundles.id}), '')`,
      revenueCents: sql<number>`coalesce(${sold.revenueCents}, 0)`.mapWith(Number),
      paidOrders: sql<number>`coalesce(${sold.paidOrders}, 0)`.mapWith(Number),
    })
    .from(bundles)
    .leftJoin(sold, eq(sold.bundleId, bundles.id))
    .orderBy(desc(bundles.createdAt))
}
