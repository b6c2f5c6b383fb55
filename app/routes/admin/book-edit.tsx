import { data, Form, Link, redirect, useNavigation } from 'react-router'
import { dangerButton, primaryButton } from '#app/components/ui/button-styles.ts'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import {
  adminBookMessages,
  bookToFormValues,
  changeBookStatus,
  deleteBook,
  getAdminBook,
  updateBook,
} from '#app/features/catalog/admin-books.server.ts'
import { parseBookForm, parseOtherPrices } from '#app/features/catalog/book-form.server.ts'
import {
  bookFields,
  centsToPrice,
  STATUS_ACTIONS,
  type BookFieldErrors,
  type BookFormValues,
  type StatusAction,
} from '#app/features/catalog/book-form.ts'
import { BookCover } from '#app/features/catalog/components/book-cover.tsx'
import { BookFormFields } from '#app/features/catalog/components/book-form-fields.tsx'
import { CoverUpload } from '#app/features/catalog/components/cover-upload.tsx'
import { OtherPricesFields } from '#app/features/catalog/components/other-prices-fields.tsx'
import { coverMessageFor } from '#app/features/catalog/covers.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import { averagePaid } from '#app/features/pricing/pay-what-you-want.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import { mailWishlistsAfterPriceChange } from '#app/features/wishlist/wishlist-mail.server.ts'
import type { Route } from './+types/book-edit'
import { privatePageMeta } from '#app/features/seo/meta.ts'

export const meta: Route.MetaFunction = ({ loaderData, matches }) =>
  privatePageMeta(
    `${loaderData ? `Edit ${loaderData.title}` : 'Book not found'} — Back office`,
    'Edit a book in the CodeBook back office.',
    { matches },
  )

const notFound = () =>
  data(
    { title: 'Book not found', message: 'There is no book with this id. It may have been deleted.' },
    { status: 404 },
  )

/** What `?saved=` says; a Map, so that `?saved=__proto__` or `constructor` finds nothing. */
const notices = new Map([
  ['created', 'The book was created. Add its cover below.'],
  ['updated', 'Your changes were saved.'],
  ['archive', 'The book was archived: it is out of the store, and its buyers keep it.'],
  ['unarchive', 'The book is back in the store.'],
  ['publish', 'The book was published: it is in the store now.'],
  ['cover', 'The new cover was saved.'],
])

export async function loader({ request, context, params, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const { db, env } = getAppContext(context)
  const book = await getAdminBook(db, params.bookId)
  if (!book) throw notFound()
  return {
    // Its price in each other currency the store offers (STORE_CURRENCIES, decision 040); '' for none.
    prices: env.STORE_CURRENCIES.filter((currency) => currency !== book.currency).map((currency) => {
      const cents = book.prices[currency]
      return { currency, value: cents === undefined ? '' : centsToPrice(cents) }
    }),
    currency: book.currency,
    // A pay-what-you-want book: what its readers paid on average (issue 30).
    paid:
      book.pwywMinCents === null ? null : { ...(await averagePaid(db, book.id)), currency: book.currency },
    id: book.id,
    title: book.title,
    slug: book.slug,
    status: book.status,
    version: book.version,
    cover: book.cover,
    coverPath: book.coverPath,
    coverAlt: book.coverAlt,
    values: bookToFormValues(book),
    notice: notices.get(url.searchParams.get('saved') ?? '') ?? null,
    coverError: coverMessageFor(url.searchParams.get('cover-error')),
  }
}

type EditActionData = {
  values?: BookFormValues
  fieldErrors: BookFieldErrors
  /** The prices in other currencies as typed, and their errors, by currency. */
  prices?: Record<string, string>
  priceErrors?: Record<string, string>
  /** After a conflict: the version now saved (posting again replaces it) and what it holds that differs. */
  currentVersion?: number
  current?: { field: string; value: string }[]
}

const intents = ['save', 'delete', ...Object.keys(STATUS_ACTIONS)] as const

export async function action({ request, context, params }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const actor = { id: admin.id, email: admin.email }
  const app = getAppContext(context)
  const { db } = app
  const form = await readForm(request)
  const intent = intents.find((known) => known === form.get('intent'))
  const rawVersion = form.get('version')
  const version = typeof rawVersion === 'string' && /^\d{1,9}$/.test(rawVersion) ? Number(rawVersion) : null
  if (!intent || version === null)
    return data<EditActionData>(
      { fieldErrors: { form: 'This form could not be read. Please reload the page and try again.' } },
      { status: 400 },
    )

  if (intent === 'delete') {
    const deleted = await deleteBook(db, actor, params.bookId, version)
    if (deleted.outcome === 'not-found') throw notFound()
    if (deleted.outcome === 'sold')
      return data<EditActionData>({ fieldErrors: { form: adminBookMessages.sold } }, { status: 409 })
    if (deleted.outcome === 'in-bundle')
      return data<EditActionData>(
        {
          fieldErrors: {
            form: `This book is in the bundle ${deleted.bundles.join(', ')}: take it out of the bundle first (Bundles in the back office), or archive the book.`,
          },
        },
        { status: 409 },
      )
    if (deleted.outcome === 'conflict')
      return data<EditActionData>(
        { fieldErrors: { form: adminBookMessages.conflict }, currentVersion: deleted.current.version },
        { status: 409 },
      )
    throw redirect(`/admin/books?deleted=${encodeURIComponent(deleted.book.title)}`, 303)
  }

  if (intent === 'save') {
    const parsed = parseBookForm(form)
    // Its prices in the other currencies offered, checked as its price is (decision 040).
    const others = parseOtherPrices(
      form,
      app.env.STORE_CURRENCIES,
      (parsed.ok ? parsed.input.currency : parsed.values.currency)?.trim().toUpperCase(),
    )
    const prices = others.values
    if (!parsed.ok || !others.ok)
      return data<EditActionData>(
        {
          values: parsed.values,
          fieldErrors: parsed.ok ? {} : parsed.fieldErrors,
          prices,
          priceErrors: others.ok ? {} : others.errors,
        },
        { status: 400 },
      )
    const saved = await updateBook(db, actor, params.bookId, version, parsed.input, others.prices)
    if (saved.outcome === 'not-found') throw notFound()
    if (saved.outcome === 'invalid')
      return data<EditActionData>(
        { values: parsed.values, fieldErrors: saved.fieldErrors, prices },
        { status: 400 },
      )
    if (saved.outcome === 'conflict') {
      const now = bookToFormValues(saved.current)
      const nowPrice = (currency: string) => {
        const cents = saved.current.prices[currency]
        return cents === undefined ? '' : centsToPrice(cents)
      }
      return data<EditActionData>(
        {
          values: parsed.values,
          fieldErrors: { form: adminBookMessages.conflict },
          prices,
          currentVersion: saved.current.version,
          current: [
            ...bookFields
              .filter((field) => (now[field] ?? '') !== (parsed.values[field] ?? ''))
              .map((field) => ({ field, value: now[field] ?? '' })),
            ...Object.entries(prices)
              .filter(([currency, typed]) => nowPrice(currency) !== typed)
              .map(([currency]) => ({ field: `price in ${currency}`, value: nowPrice(currency) })),
          ],
        },
        { status: 409 },
      )
    }
    // A lower price is news for the readers who wished for the book and asked to hear (issue 30).
    await mailWishlistsAfterPriceChange(app, [params.bookId])
    throw redirect(`/admin/books/${params.bookId}?saved=updated`, 303)
  }

  const changed = await changeBookStatus(db, actor, params.bookId, version, intent as StatusAction)
  if (changed.outcome === 'not-found') throw notFound()
  if (changed.outcome === 'invalid')
    return data<EditActionData>({ fieldErrors: changed.fieldErrors }, { status: 400 })
  if (changed.outcome === 'conflict')
    return data<EditActionData>(
      { fieldErrors: { form: adminBookMessages.conflict }, currentVersion: changed.current.version },
      { status: 409 },
    )
  throw redirect(`/admin/books/${params.bookId}?saved=${intent}`, 303)
}

const fieldLabels: Record<string, string> = {
  priceCents: 'price in cents',
  pwywMinCents: 'pay what you want, from (cents)',
  featuredPosition: 'featured order',
  bestSeller: 'best seller',
}

export default function EditBook({ loaderData, actionData }: Route.ComponentProps) {
  const book = loaderData
  const saving = useNavigation().state === 'submitting'
  const errors = actionData?.fieldErrors ?? {}
  const version = actionData?.currentVersion ?? book.version
  const statusActions = (Object.keys(STATUS_ACTIONS) as StatusAction[]).filter((intent) =>
    (STATUS_ACTIONS[intent].from as readonly string[]).includes(book.status),
  )
  const actionLabels: Record<StatusAction, string> = {
    archive: 'Archive',
    unarchive: 'Unarchive (publish again)',
    publish: 'Publish',
  }
  return (
    <section aria-labelledby="edit-book-heading" className="flex flex-col gap-8">
      <div>
        <p className="mb-2 text-sm">
          <Link to="/admin/books" className="text-blue-700 underline dark:text-sky-300">
            All books
          </Link>
        </p>
        <h1 id="edit-book-heading" className="text-2xl font-semibold">
          Edit “{book.title}”
        </h1>
        <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">
          Status: <strong>{book.status}</strong>
          {book.status === 'published' ? (
            <>
              {' · '}
              <Link to={`/books/${book.slug}`} className="text-blue-700 underline dark:text-sky-300">
                View in the store
              </Link>
            </>
          ) : null}
        </p>
      </div>
      {book.notice && !actionData ? (
        <p
          role="status"
          className="rounded-lg border border-emerald-700 p-3 text-emerald-800 dark:border-emerald-300 dark:text-emerald-200"
        >
          {book.notice}
        </p>
      ) : null}
      {errors.form || errors.status ? (
        <div
          role="alert"
          className="rounded-lg border border-red-700 p-3 text-red-800 dark:border-red-300 dark:text-red-200"
        >
          <p>{errors.form ?? errors.status}</p>
          {actionData?.current && actionData.current.length > 0 ? (
            <>
              <p className="mt-2">Saved meanwhile (your version is in the form):</p>
              <ul className="mt-1 list-disc pl-6">
                {actionData.current.map(({ field, value }) => (
                  <li key={field}>
                    {fieldLabels[field] ?? field}: {value === '' ? '(empty)' : value.slice(0, 200)}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
      ) : Object.keys(errors).length > 0 || Object.keys(actionData?.priceErrors ?? {}).length > 0 ? (
        <p role="alert" className="text-red-700 dark:text-red-300">
          The book was not saved: please correct the fields marked below.
        </p>
      ) : null}

      <Form method="post" className="flex flex-col gap-6">
        <input type="hidden" name="version" value={version} />
        <BookFormFields values={actionData?.values ?? book.values} errors={errors} />
        <OtherPricesFields
          prices={book.prices.map(({ currency, value }) => ({
            currency,
            value: actionData?.prices?.[currency] ?? value,
          }))}
          ownCurrency={book.currency}
          errors={actionData?.priceErrors ?? {}}
        />
        {book.paid ? (
          <p className="text-sm text-slate-700 dark:text-slate-300">
            Pay what you want:{' '}
            {book.paid.orders === 0
              ? 'no paid order yet.'
              : `readers paid ${formatPrice(book.paid.averageCents, book.paid.currency)} on average, over ${book.paid.orders} paid ${book.paid.orders === 1 ? 'order' : 'orders'}.`}
          </p>
        ) : null}
        <div>
          <button type="submit" name="intent" value="save" className={primaryButton} disabled={saving}>
            {saving ? 'Saving…' : 'Save changes'}
          </button>
        </div>
      </Form>

      <TitledSection
        id="manuscript-heading"
        title="Manuscript and editions"
        className="flex flex-col gap-2"
        headingClassName="text-xl font-semibold"
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">
          The book's PDF, EPUB and free sample are rendered from its manuscript; each publish is a new
          edition, and its owners are told by email. A book goes on sale only once it has a first edition.
        </p>
        <p>
          <Link
            to={`/admin/books/${book.id}/manuscript`}
            className="text-blue-700 underline dark:text-sky-300"
          >
            Edit the manuscript and publish an edition
          </Link>
        </p>
      </TitledSection>

      <TitledSection
        id="cover-heading"
        title="Cover"
        className="flex flex-col gap-4"
        headingClassName="text-xl font-semibold"
      >
        <div className="w-40">
          <BookCover
            cover={book.cover}
            coverPath={book.coverPath}
            alt={book.coverAlt}
            sizes="160px"
            className="h-auto w-full rounded shadow"
          />
        </div>
        <CoverUpload bookId={book.id} version={version} initialError={book.coverError} />
      </TitledSection>

      <TitledSection
        id="status-heading"
        title="In the store"
        className="flex flex-col gap-3"
        headingClassName="text-xl font-semibold"
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">
          Archiving takes the book out of the store, search and its page; buyers keep it in their library. A
          book that was ever sold cannot be deleted.
        </p>
        <div className="flex flex-wrap gap-3">
          {statusActions.map((intent) => (
            <Form method="post" key={intent}>
              <input type="hidden" name="version" value={version} />
              <button type="submit" name="intent" value={intent} className={primaryButton}>
                {actionLabels[intent]}
              </button>
            </Form>
          ))}
          <Form
            method="post"
            onSubmit={(event) => {
              if (!window.confirm(`Delete “${book.title}” for good?`)) event.preventDefault()
            }}
          >
            <input type="hidden" name="version" value={version} />
            <button type="submit" name="intent" value="delete" className={dangerButton}>
              Delete book
            </button>
          </Form>
        </div>
      </TitledSection>
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
