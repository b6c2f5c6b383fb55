import { Link } from 'react-router'
import { Options, SelectField } from '#app/components/ui/field.tsx'
import { FilterForm } from '#app/components/ui/filter-form.tsx'
import { formatRatingCount, formatRatingValue } from '#app/features/catalog/rating.ts'
import type { ShownRating } from '#app/features/catalog/rating.ts'
import { REVIEW_SORTS, reviewSortLabels, type ReviewFieldErrors, type ReviewSort } from '../review-form.ts'
import { RatingHistogram } from './rating-histogram.tsx'
import { ReviewForm, type ReviewFormValues } from './review-form.tsx'
import { ReviewList, ReviewPages, type ReviewItem } from './review-list.tsx'

/** Who is looking, as far as reviewing goes. */
export type ReviewViewer =
  | { kind: 'signed-out'; loginTo: string }
  | { kind: 'not-owner' }
  | {
      kind: 'owner'
      ownReview: { rating: number; title: string; body: string; hiddenByModerator: boolean } | null
    }

export type ReviewActionData = {
  formError?: string
  fieldErrors?: ReviewFieldErrors
  values?: ReviewFormValues
}

export function ReviewsSection({
  slug,
  rating,
  histogram,
  reviews,
  sort,
  page,
  pages,
  viewer,
  actionData,
}: {
  slug: string
  rating: ShownRating
  histogram: number[]
  reviews: ReviewItem[]
  sort: ReviewSort
  page: number
  pages: number
  viewer: ReviewViewer
  actionData?: ReviewActionData
}) {
  const linkTo = (to: number) =>
    `/books/${slug}?${new URLSearchParams({ ...(sort === 'newest' ? {} : { sort }), page: String(to) })}#reviews`
  return (
    <section aria-labelledby="reviews-heading" id="reviews" className="mx-auto max-w-6xl px-4 pb-16">
      <h2 id="reviews-heading" className="mb-6 text-2xl font-semibold">
        Reader reviews
      </h2>
      <div className="grid gap-10 md:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <div className="flex flex-col gap-6">
          {rating.count > 0 ? (
            <>
              {/* In words: the stars are at the top of the page already (five icons again would weigh more). */}
              <p className="text-lg">
                <span className="text-2xl font-semibold">{formatRatingValue(rating.value)}</span> out of 5 ·{' '}
                {formatRatingCount(rating.count)}
              </p>
              <RatingHistogram histogram={histogram} total={rating.count} />
            </>
          ) : (
            <p>No reader has reviewed this book yet.</p>
          )}
          <div className="flex flex-col gap-3">
            <h3 id="your-review-heading" className="text-lg font-semibold">
              {viewer.kind === 'owner' && viewer.ownReview ? 'Your review' : 'Review this book'}
            </h3>
            <YourReview viewer={viewer} actionData={actionData} />
          </div>
        </div>
        <div className="flex flex-col gap-6">
          {actionData?.formError && viewer.kind !== 'owner' ? (
            <p role="alert" className="font-medium text-red-700 dark:text-red-300">
              {actionData.formError}
            </p>
          ) : null}
          {rating.count > 0 ? (
            <FilterForm submitLabel="Sort" preventScrollReset>
              <SelectField label="Sort reviews by" name="sort" defaultValue={sort}>
                <Options options={REVIEW_SORTS.map((value) => ({ value, label: reviewSortLabels[value] }))} />
              </SelectField>
            </FilterForm>
          ) : null}
          <ReviewList reviews={reviews} canReact={viewer.kind !== 'signed-out'} />
          <ReviewPages page={page} pages={pages} linkTo={linkTo} />
        </div>
      </div>
    </section>
  )
}

function YourReview({ viewer, actionData }: { viewer: ReviewViewer; actionData?: ReviewActionData }) {
  if (viewer.kind === 'signed-out')
    return (
      <p>
        Readers who bought this book can review it.{' '}
        <Link to={viewer.loginTo} className="text-blue-700 underline dark:text-sky-300">
          Log in to review it
        </Link>
        .
      </p>
    )
  if (viewer.kind === 'not-owner')
    return <p>Only readers who bought this book can review it: reviews here are all verified purchases.</p>
  const own = viewer.ownReview
  return (
    <>
      {own?.hiddenByModerator ? (
        <p className="text-sm text-slate-700 dark:text-slate-300">
          A moderator has hidden your review from the store.
        </p>
      ) : null}
      <ReviewForm
        editing={Boolean(own)}
        values={actionData?.values ?? own ?? {}}
        fieldErrors={actionData?.fieldErrors}
        formError={actionData?.formError}
      />
    </>
  )
}
