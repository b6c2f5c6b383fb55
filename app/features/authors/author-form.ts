import { formatCount } from '#app/features/locale/number-format.ts'

/**
 * The back office's author form as the browser needs it: the limits its HTML constraints come from. The
 * action checks a post with the same limits (author-form.server.ts).
 */
export const AUTHOR_FORM_LIMITS = {
  nameMax: 200,
  bioMax: 10_000,
} as const

export const authorFields = ['name', 'bio'] as const
export type AuthorField = (typeof authorFields)[number]
export type AuthorFieldErrors = Partial<Record<AuthorField | 'form', string>>
export type AuthorFormValues = Partial<Record<AuthorField, string>>

export const authorMessages = {
  nameMissing: 'Please enter the author’s name.',
  nameTooLong: `An author’s name has at most ${AUTHOR_FORM_LIMITS.nameMax} characters.`,
  bioTooLong: `A bio has at most ${formatCount(AUTHOR_FORM_LIMITS.bioMax)} characters.`,
  nameTaken: (name: string) => `Another author is already called “${name}”.`,
  conflict:
    'Someone else saved this author while you were editing. Your changes are in the form, not saved: save again to replace theirs.',
} as const
