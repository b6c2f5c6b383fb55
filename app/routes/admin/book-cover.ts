import { data, redirect } from 'react-router'
import { getAdminBook, setBookCover } from '#app/features/catalog/admin-books.server.ts'
import {
  coverMessages,
  deleteCover,
  MAX_COVER_BYTES,
  resizeCover,
  storeCover,
  type CoverProblem,
} from '#app/features/catalog/covers.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/book-cover'

/** Multipart framing and the other fields around the image (the host allows the same here: `handle`). */
export const COVER_UPLOAD_OVERHEAD = 64 * 1024
/** MAX_COVER_BYTES and its message written out, as `handle` reaches the browser (a test compares them). */
export const handle = {
  requestBody: {
    maxBytes: 10 * 1024 * 1024 + COVER_UPLOAD_OVERHEAD,
    tooLarge: 'This file is larger than 10 MB. Please upload a smaller image.',
  },
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  // Escaped: the id comes from the URL, and a Location header may only hold ASCII.
  throw redirect(`/admin/books/${encodeURIComponent(params.bookId)}`)
}

/** Each refusal's status: the content checked (400), too many bytes (413) or pixels (422), the queue full (503). */
const statusOf = {
  missing: 400,
  notAnImage: 400,
  corrupt: 400,
  tooLarge: 413,
  tooManyPixels: 422,
  busy: 503,
} as const satisfies Record<CoverProblem, number>

/** Seconds an upload refused as `busy` is told to wait: about one resize of a large cover. */
const BUSY_RETRY_SECONDS = 5

const notFound = () =>
  data({ title: 'Book not found', message: 'There is no book with this id.' }, { status: 404 })

/**
 * POST a cover (multipart, field `cover`, and the `version` the page showed). The image is checked by its
 * content, resized into every variant, stored, then set on the book in one audited change. A script asking
 * for JSON gets the outcome with its status (200, 400, 409, 413, 422, 503 with Retry-After); a plain form post
 * is sent back to the edit page with the outcome in the URL. Resizing waits its turn in the process's image
 * queue (one at a time, a few waiting: decision 012).
 */
export async function action({ request, context, params }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const { db, storage, imageWork } = getAppContext(context)
  const wantsJson = (request.headers.get('Accept') ?? '').includes('application/json')
  const editPage = `/admin/books/${params.bookId}`
  const answer = (status: number, problem: keyof typeof coverMessages | null) =>
    wantsJson
      ? Response.json(
          { ok: problem === null, message: problem ? coverMessages[problem] : 'The new cover was saved.' },
          { status, headers: status === 503 ? { 'Retry-After': String(BUSY_RETRY_SECONDS) } : {} },
        )
      : redirect(problem ? `${editPage}?cover-error=${problem}` : `${editPage}?saved=cover`, 303)

  const book = await getAdminBook(db, params.bookId)
  if (!book) throw notFound()
  // The host refuses larger bodies before they are read; checked again for any other way in.
  if (Number(request.headers.get('Content-Length') ?? 0) > MAX_COVER_BYTES + COVER_UPLOAD_OVERHEAD)
    return answer(413, 'tooLarge')
  const form = await readForm(request)
  const file = form.get('cover')
  const rawVersion = form.get('version')
  const version =
    typeof rawVersion === 'string' && /^\d{1,9}$/.test(rawVersion) ? Number(rawVersion) : book.version
  if (!(file instanceof File) || file.size === 0) return answer(400, 'missing')
  if (file.size > MAX_COVER_BYTES) return answer(413, 'tooLarge')

  const resized = await resizeCover(imageWork, book.id, new Uint8Array(await file.arrayBuffer()))
  if (!resized.ok) return answer(statusOf[resized.problem], resized.problem)
  await storeCover(storage, resized.resized)
  const saved = await setBookCover(
    db,
    { id: admin.id, email: admin.email },
    book.id,
    version,
    resized.resized.cover,
  )
  if (saved.outcome !== 'saved') {
    // The variants of an upload that was not saved are nobody's; a re-upload of the same image stores them again.
    if (book.cover?.keyPrefix !== resized.resized.cover.keyPrefix)
      await deleteCover(storage, resized.resized.cover)
    if (saved.outcome === 'not-found') throw notFound()
    return answer(409, 'conflict')
  }
  if (saved.previous && saved.previous.keyPrefix !== resized.resized.cover.keyPrefix)
    await deleteCover(storage, saved.previous)
  return answer(200, null)
}
