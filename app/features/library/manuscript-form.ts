import { formatCount } from '#app/features/locale/number-format.ts'

/**
 * The rules of the manuscript page (/admin/books/:bookId/manuscript), shared by its forms (as HTML
 * constraints) and its action (which checks them again with manuscript-form.server.ts; zod stays out of the
 * browser's bundle, where its eval probe would break the Content-Security-Policy). Sizes are in UTF-8 bytes: what is stored and what the
 * host's body limit counts (the manuscript route declares a larger body than other forms: its `handle`).
 */
export const MANUSCRIPT_MAX_BYTES = 2 * 1024 * 1024
export const CHANGELOG_MAX_LENGTH = 2_000

export const manuscriptMessages = {
  manuscriptMissing: 'The manuscript is empty. Type or upload the book’s Markdown.',
  manuscriptTooBig: `A manuscript has at most ${MANUSCRIPT_MAX_BYTES / 1024 / 1024} MB.`,
  changelogMissing: 'Say what changed in this edition: readers see it in the list of editions.',
  changelogTooLong: `A changelog has at most ${formatCount(CHANGELOG_MAX_LENGTH)} characters.`,
  fileMissing: 'Choose a .md file to upload.',
  fileNotMarkdown: 'Upload a Markdown file whose name ends in .md.',
  fileTooBig: `The file is larger than ${MANUSCRIPT_MAX_BYTES / 1024 / 1024} MB.`,
  fileNotText: 'This file is not UTF-8 text. Save the manuscript as UTF-8 Markdown and upload it again.',
} as const

export type ManuscriptField = 'manuscript' | 'changelog' | 'file'
export type ManuscriptFieldErrors = Partial<Record<ManuscriptField, string>>
