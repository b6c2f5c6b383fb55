import { data, Form, Link, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { Options, SelectField } from '#app/components/ui/field.tsx'
import { FilterForm } from '#app/components/ui/filter-form.tsx'
import { Pager } from '#app/components/ui/pager.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { MODERATION_FILTERS, type ModerationFilter } from '#app/features/reviews/moderation.ts'
import {
  listReviewsForModeration,
  ModerationSchema,
  setReviewHidden,
} from '#app/features/reviews/moderation.server.ts'
import { paragraphsOf } from '#app/features/reviews/review-form.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/reviews'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Reviews — Back office', 'Reviews in the CodeBook back office.', { matches })

const filterLabels: Record<ModerationFilter, string> = {
  reported: 'Reported, still shown',
  hidden: 'Hidden by a moderator',
  all: 'All reviews',
}

export async function loader({ request, context, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const rawFilter = url.searchParams.get('filter')
  const filter = MODERATION_FILTERS.find((known) => known === rawFilter) ?? 'reported'
  const after = url.searchParams.get('after')
  const { rows, next } = await listReviewsForModeration(getAppContext(context).db, { filter, after })
  return { filter, reviews: rows, next, isFirstPage: !after }
}

/** Hide or restore a review: audited, and the book's ratings and cards follow (moderation.server.ts). */
export async function action({ request, context, url }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const { db } = getAppContext(context)
  const form = await readForm(request)
  const parsed = ModerationSchema.safeParse({ intent: form.get('intent'), reviewId: form.get('reviewId') })
  if (!parsed.success) return data({ message: 'This action could not be read. Please reload the page.' }, 400)
  const changed = await setReviewHidden(db, {
    reviewId: parsed.data.reviewId,
    hidden: parsed.data.intent === 'hide',
    actor: { id: admin.id, email: admin.email },
  })
  if (!changed)
    return data({ message: 'This review was already changed or is gone. The list is up to date now.' }, 409)
  return redirect(`/admin/reviews${url.search}`, 303)
}

export default function AdminReviews({ loaderData, actionData }: Route.ComponentProps) {
  const { filter, reviews, next, isFirstPage } = loaderData
  const pageLink = (after?: string) =>
    `/admin/reviews?${new URLSearchParams({ filter, ...(after ? { after } : {}) })}`
  return (
    <TitledSection
      id="reviews-heading"
      title="Reviews"
      level={1}
      headingClassName="mb-6 text-2xl font-semibold"
    >
      <FilterForm submitLabel="Show" className="mb-6">
        <SelectField label="Show" name="filter" defaultValue={filter}>
          <Options options={MODERATION_FILTERS.map((value) => ({ value, label: filterLabels[value] }))} />
        </SelectField>
      </FilterForm>
      {actionData?.message ? (
        <p role="alert" className="mb-4 font-medium text-red-700 dark:text-red-300">
          {actionData.message}
        </p>
      ) : null}
      {reviews.length === 0 ? (
        <p>{filter === 'reported' ? 'No reported reviews.' : 'No reviews.'}</p>
      ) : (
        <ol className="flex flex-col gap-4">
          {reviews.map((review) => (
            <li key={review.id}>
              <article
                aria-labelledby={`moderated-${review.id}`}
                className="flex flex-col gap-2 rounded-lg border border-slate-300 p-4 dark:border-gray-600"
              >
                <h2 id={`moderated-${review.id}`} className="font-semibold">
                  {review.title || '(no title)'} — {review.rating} of 5 stars
                </h2>
                <p className="text-sm text-slate-700 dark:text-slate-300">
                  On{' '}
                  <Link
                    to={`/books/${review.bookSlug}#reviews`}
                    className="text-blue-700 underline dark:text-sky-300"
                  >
                    {review.bookTitle}
                  </Link>{' '}
                  by {review.authorEmail} · <FormattedDate value={review.createdAt} />
                </p>
                <p className="text-sm">
                  Status:{' '}
                  <strong>
                    {review.hiddenAt
                      ? 'hidden by a moderator'
                      : review.unowned
                        ? 'hidden (the buyer was refunded)'
                        : 'shown'}
                  </strong>{' '}
                  · Reports: {review.reportCount}
                </p>
                {review.reasons.length > 0 ? (
                  <ul className="list-inside list-disc text-sm">
                    {review.reasons.map((reason, index) => (
                      <li key={index}>{reason}</li>
                    ))}
                  </ul>
                ) : null}
                {paragraphsOf(review.body).map((paragraph, index) => (
                  <p key={index} className="whitespace-pre-line">
                    {paragraph}
                  </p>
                ))}
                <Form method="post">
                  <input type="hidden" name="reviewId" value={review.id} />
                  <button
                    type="submit"
                    name="intent"
                    value={review.hiddenAt ? 'restore' : 'hide'}
                    className={primaryButton}
                  >
                    {review.hiddenAt ? 'Restore review' : 'Hide review'}
                  </button>
                </Form>
              </article>
            </li>
          ))}
        </ol>
      )}
      <Pager
        label="Review list pages"
        first={isFirstPage ? null : { to: pageLink(), label: 'First page' }}
        next={next === null ? null : { to: pageLink(next), label: 'Next page' }}
      />
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
