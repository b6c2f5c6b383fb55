import { z } from 'zod'
import { firstFieldErrors } from '#app/server/form.server.ts'
import {
  CHANGELOG_MAX_LENGTH,
  MANUSCRIPT_MAX_BYTES,
  manuscriptMessages,
  type ManuscriptFieldErrors,
} from './manuscript-form.ts'

const utf8Length = (text: string) => new TextEncoder().encode(text).length

const ManuscriptTextSchema = z
  .string({ error: manuscriptMessages.manuscriptMissing })
  // Browsers post textarea line breaks as CRLF; the parser accepts both, stored text uses LF.
  .transform((text) => text.replace(/\r\n?/g, '\n'))
  .refine((text) => text.trim() !== '', manuscriptMessages.manuscriptMissing)
  .refine((text) => utf8Length(text) <= MANUSCRIPT_MAX_BYTES, manuscriptMessages.manuscriptTooBig)

export const SaveManuscriptSchema = z.object({ manuscript: ManuscriptTextSchema })

export const PublishEditionSchema = z.object({
  manuscript: ManuscriptTextSchema,
  changelog: z
    .string({ error: manuscriptMessages.changelogMissing })
    .transform((text) => text.replace(/\r\n?/g, '\n').trim())
    .refine((text) => text !== '', manuscriptMessages.changelogMissing)
    .refine((text) => text.length <= CHANGELOG_MAX_LENGTH, manuscriptMessages.changelogTooLong),
})

/** The first problem with each field, to show next to it. */
export function manuscriptFieldErrorsOf(error: z.ZodError): ManuscriptFieldErrors {
  return firstFieldErrors(error, ['manuscript', 'changelog'])
}

/**
 * An uploaded manuscript as text, or the reason it is refused: a `.md` name, at most the size limit, and valid
 * UTF-8 (a byte-order mark is dropped) without NUL bytes, which no text file holds.
 */
export async function readManuscriptUpload(
  file: unknown,
): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  if (!(file instanceof File) || (file.size === 0 && file.name === ''))
    return { ok: false, error: manuscriptMessages.fileMissing }
  if (!/\.(md|markdown)$/i.test(file.name)) return { ok: false, error: manuscriptMessages.fileNotMarkdown }
  if (file.size > MANUSCRIPT_MAX_BYTES) return { ok: false, error: manuscriptMessages.fileTooBig }
  const bytes = new Uint8Array(await file.arrayBuffer())
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    return { ok: false, error: manuscriptMessages.fileNotText }
  }
  if (text.includes('\0')) return { ok: false, error: manuscriptMessages.fileNotText }
  return { ok: true, text }
}
