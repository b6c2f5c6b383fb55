import { data, redirect } from 'react-router'
import { getAdminAuthor, setAuthorPhoto } from '#app/features/authors/authors.server.ts'
import {
  deleteAuthorPhoto,
  MAX_PHOTO_BYTES,
  resizeAuthorPhoto,
  storeAuthorPhoto,
  type PhotoProblem,
} from '#app/features/authors/photos.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/author-photo'

/** Multipart framing and the other fields around the image (the host allows the same here: `handle`). */
const PHOTO_UPLOAD_OVERHEAD = 64 * 1024
/** MAX_PHOTO_BYTES and its message written out, as `handle` reaches the browser. */
export const handle = {
  requestBody: {
    maxBytes: 10 * 1024 * 1024 + PHOTO_UPLOAD_OVERHEAD,
    tooLarge: 'This file is larger than 10 MB. Please upload a smaller image.',
  },
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  throw redirect(`/admin/authors/${encodeURIComponent(params.authorId)}`)
}

const notFound = () =>
  data({ title: 'Author not found', message: 'There is no author with this id.' }, { status: 404 })

/**
 * POST a photo (multipart, field `photo`, and the `version` the page showed), or `intent=remove`. The image is
 * checked by its content, resized, stored, then set on the author in one audited change; the edit page is
 * shown again with the outcome (`?saved=photo`, or `?photo-error=<problem>` whose message sits by the field).
 */
export async function action({ request, context, params }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const { db, storage, imageWork } = getAppContext(context)
  const author = await getAdminAuthor(db, params.authorId)
  if (!author) throw notFound()
  const editPage = `/admin/authors/${author.id}`
  const failed = (problem: PhotoProblem) => redirect(`${editPage}?photo-error=${problem}`, 303)
  if (Number(request.headers.get('Content-Length') ?? 0) > MAX_PHOTO_BYTES + PHOTO_UPLOAD_OVERHEAD)
    return failed('tooLarge')
  const form = await readForm(request)
  const rawVersion = form.get('version')
  const version =
    typeof rawVersion === 'string' && /^\d{1,9}$/.test(rawVersion) ? Number(rawVersion) : author.version
  const actor = { id: admin.id, email: admin.email }

  if (form.get('intent') === 'remove') {
    const removed = await setAuthorPhoto(db, actor, author.id, version, null)
    if (removed.outcome !== 'saved') return failed('conflict')
    if (removed.previous) await deleteAuthorPhoto(storage, removed.previous)
    return redirect(`${editPage}?saved=photo-removed`, 303)
  }

  const file = form.get('photo')
  if (!(file instanceof File) || file.size === 0) return failed('missing')
  if (file.size > MAX_PHOTO_BYTES) return failed('tooLarge')
  const resized = await resizeAuthorPhoto(imageWork, author.id, new Uint8Array(await file.arrayBuffer()))
  if (!resized.ok) return failed(resized.problem)
  await storeAuthorPhoto(storage, resized.resized)
  const saved = await setAuthorPhoto(db, actor, author.id, version, resized.resized.photo)
  if (saved.outcome !== 'saved') {
    if (author.photo?.keyPrefix !== resized.resized.photo.keyPrefix)
      await deleteAuthorPhoto(storage, resized.resized.photo)
    return failed('conflict')
  }
  if (saved.previous && saved.previous.keyPrefix !== resized.resized.photo.keyPrefix)
    await deleteAuthorPhoto(storage, saved.previous)
  return redirect(`${editPage}?saved=photo`, 303)
}
