import { z } from 'zod'
import { REPORT_REASON_MAX, REVIEW_BODY_MAX, REVIEW_TITLE_MAX, reviewMessages } from './review-form.ts'

/** Line ends as one kind, so that a limit counts what the reader typed whatever their browser sends. */
const text = (max: number, message: string) =>
  z
    .string()
    .transform((value) => value.replace(/\r\n?/g, '\n').trim())
    .pipe(z.string().max(max, message))

export const ReviewFormSchema = z.object({
  rating: z.coerce
    .number({ message: reviewMessages.ratingMissing })
    .int(reviewMessages.ratingMissing)
    .min(1, reviewMessages.ratingMissing)
    .max(5, reviewMessages.ratingMissing),
  title: text(REVIEW_TITLE_MAX, reviewMessages.titleTooLong),
  body: text(REVIEW_BODY_MAX, reviewMessages.bodyTooLong),
})
export type ReviewInput = z.infer<typeof ReviewFormSchema>

export const ReportFormSchema = z.object({
  reason: text(REPORT_REASON_MAX, reviewMessages.reasonTooLong),
})

/** A review named by a form (a helpful vote, a report, a moderator's action). */
export const ReviewIdSchema = z.object({ reviewId: z.uuid() })
