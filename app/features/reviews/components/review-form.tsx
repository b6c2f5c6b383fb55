import { Form } from 'react-router'
import { dangerButton, primaryButton } from '#app/components/ui/button-styles.ts'
import { REVIEW_BODY_MAX, REVIEW_TITLE_MAX, type ReviewFieldErrors } from '../review-form.ts'
import { formatCount } from '#app/features/locale/number-format.ts'

export type ReviewFormValues = { rating?: number | string; title?: string; body?: string }

const fieldClass =
  'rounded-lg border border-slate-400 bg-white px-3 py-2 text-slate-900 aria-invalid:border-red-600 dark:border-gray-500 dark:bg-gray-900 dark:text-slate-100 dark:aria-invalid:border-red-400'

/**
 * Write or edit one's review. A plain server-rendered form: the stars are a native radio group in a fieldset
 * (arrow keys move between them, no script needed), errors sit next to their fields.
 */
export function ReviewForm({
  values,
  fieldErrors = {},
  formError,
  editing,
}: {
  values: ReviewFormValues
  fieldErrors?: ReviewFieldErrors
  formError?: string
  editing: boolean
}) {
  const rating = values.rating === undefined ? undefined : String(values.rating)
  return (
    <div className="flex flex-col gap-3">
      <Form method="post" className="flex flex-col gap-4" aria-labelledby="your-review-heading">
        <input type="hidden" name="intent" value="review" />
        {formError ? (
          <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-300">
            {formError}
          </p>
        ) : null}
        <fieldset
          aria-describedby={fieldErrors.rating ? 'review-rating-error' : undefined}
          className="flex flex-col gap-2"
        >
          <legend className="text-sm font-medium">Your rating</legend>
          <div className="flex flex-wrap gap-3">
            {[1, 2, 3, 4, 5].map((stars) => (
              <label
                key={stars}
                className="flex items-center gap-1 rounded-md border border-slate-300 px-2 py-1 has-[:checked]:border-blue-700 has-[:checked]:bg-blue-50 dark:border-gray-600 dark:has-[:checked]:border-sky-300 dark:has-[:checked]:bg-slate-800"
              >
                <input
                  type="radio"
                  name="rating"
                  value={stars}
                  defaultChecked={rating === String(stars)}
                  required
                  className="size-4 accent-blue-700"
                />
                {stars} {stars === 1 ? 'star' : 'stars'}
              </label>
            ))}
          </div>
          {fieldErrors.rating ? (
            <p id="review-rating-error" className="text-sm text-red-700 dark:text-red-300">
              {fieldErrors.rating}
            </p>
          ) : null}
        </fieldset>
        <div className="flex flex-col gap-1">
          <label htmlFor="review-title" className="text-sm font-medium">
            Title (optional)
          </label>
          <input
            id="review-title"
            name="title"
            maxLength={REVIEW_TITLE_MAX}
            defaultValue={values.title ?? ''}
            aria-invalid={fieldErrors.title ? true : undefined}
            aria-describedby={fieldErrors.title ? 'review-title-error' : undefined}
            className={fieldClass}
          />
          {fieldErrors.title ? (
            <p id="review-title-error" className="text-sm text-red-700 dark:text-red-300">
              {fieldErrors.title}
            </p>
          ) : null}
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="review-body" className="text-sm font-medium">
            Your review (optional)
          </label>
          <textarea
            id="review-body"
            name="body"
            rows={6}
            maxLength={REVIEW_BODY_MAX}
            defaultValue={values.body ?? ''}
            aria-invalid={fieldErrors.body ? true : undefined}
            aria-describedby={`review-body-hint${fieldErrors.body ? ' review-body-error' : ''}`}
            className={fieldClass}
          />
          <p id="review-body-hint" className="text-sm text-slate-600 dark:text-slate-300">
            Plain text, up to {formatCount(REVIEW_BODY_MAX)} characters; leave a blank line between
            paragraphs.
          </p>
          {fieldErrors.body ? (
            <p id="review-body-error" className="text-sm text-red-700 dark:text-red-300">
              {fieldErrors.body}
            </p>
          ) : null}
        </div>
        <div>
          <button type="submit" className={primaryButton}>
            {editing ? 'Update review' : 'Post review'}
          </button>
        </div>
      </Form>
      {editing ? (
        // Asked twice, without JavaScript too: the button that deletes is inside the disclosure.
        <details>
          <summary className="w-fit cursor-pointer font-medium text-red-700 underline dark:text-red-300">
            Delete my review
          </summary>
          <Form method="post" className="mt-2 flex flex-wrap items-center gap-3">
            <input type="hidden" name="intent" value="delete-review" />
            <p>Your stars and text will be removed for good.</p>
            <button type="submit" className={dangerButton}>
              Yes, delete my review
            </button>
          </Form>
        </details>
      ) : null}
    </div>
  )
}
