import crypto from 'node:crypto'
import sharp from 'sharp'
import { detectImageType, MAX_COVER_BYTES, MAX_COVER_PIXELS } from '#app/features/catalog/covers.server.ts'
import { isNotNull } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { authors, type AuthorPhoto } from '#app/server/db/schema/index.server.ts'
import type { FileStorage } from '#app/server/storage.server.ts'
import { WorkQueueFullError, type WorkQueue } from '#app/server/work-queue.server.ts'
import { AUTHOR_PHOTO_FOLDER, AUTHOR_PHOTO_FORMATS, AUTHOR_PHOTO_WIDTHS } from './author-photo.ts'

/**
 * An author's photo is checked as a cover is (features/catalog/covers.server.ts: the content sniffed, the bytes
 * and the pixels limited before anything is decoded) and resized into the few widths the pages draw it at.
 */
export const MAX_PHOTO_BYTES = MAX_COVER_BYTES
export const MAX_PHOTO_PIXELS = MAX_COVER_PIXELS

export const photoMessages = {
  missing: 'Please choose an image file to upload.',
  tooLarge: `This file is larger than ${MAX_PHOTO_BYTES / 1024 / 1024} MB. Please upload a smaller image.`,
  notAnImage:
    'This file is not a JPEG, PNG, WebP or AVIF image (its content was checked, not its name). Please upload a photo.',
  corrupt: 'This image could not be read: the file looks damaged. Please export it again and upload it.',
  tooManyPixels: `This image has more than ${MAX_PHOTO_PIXELS / 1_000_000} megapixels. A photo is shown at most 384 pixels wide: please export it smaller (1000 × 1000 pixels is plenty) and upload it.`,
  busy: 'Another image is being resized right now. Please try again in a few seconds.',
  conflict:
    'Someone else changed this author meanwhile, so the photo was not saved. Please reload the page and upload it again.',
} as const

export type PhotoProblem = keyof typeof photoMessages

/** The message for a problem named in a URL (`?photo-error=`); null for a name it does not know. */
export function photoMessageFor(problem: string | null): string | null {
  return problem !== null && Object.hasOwn(photoMessages, problem)
    ? photoMessages[problem as PhotoProblem]
    : null
}

export type ResizedPhoto = { photo: AuthorPhoto; files: { key: string; bytes: Uint8Array }[] }

/**
 * Checks an uploaded photo by its content and resizes it into every width (never enlarged) in WebP and JPEG.
 * Keys carry the author's id and a hash of the upload, so a new photo has new URLs. The decoding waits its turn
 * in `work`, the process's image queue (decision 012).
 */
export async function resizeAuthorPhoto(
  work: WorkQueue,
  authorId: string,
  bytes: Uint8Array,
): Promise<{ ok: true; resized: ResizedPhoto } | { ok: false; problem: Exclude<PhotoProblem, 'conflict'> }> {
  if (bytes.byteLength === 0) return { ok: false, problem: 'missing' }
  if (bytes.byteLength > MAX_PHOTO_BYTES) return { ok: false, problem: 'tooLarge' }
  if (!detectImageType(bytes)) return { ok: false, problem: 'notAnImage' }
  let width: number
  let height: number
  try {
    // The header only: nothing is decoded here.
    const metadata = await sharp(bytes, { limitInputPixels: false, failOn: 'error' }).metadata()
    if (!metadata.width || !metadata.height) return { ok: false, problem: 'corrupt' }
    if (metadata.width * metadata.height > MAX_PHOTO_PIXELS) return { ok: false, problem: 'tooManyPixels' }
    const turned = (metadata.orientation ?? 1) >= 5
    width = turned ? metadata.height : metadata.width
    height = turned ? metadata.width : metadata.height
  } catch {
    return { ok: false, problem: 'corrupt' }
  }
  const widths = [...new Set(AUTHOR_PHOTO_WIDTHS.map((wanted) => Math.min(wanted, width)))]
  let files: { width: number; format: 'webp' | 'jpeg'; bytes: Uint8Array }[] | null
  try {
    files = await work.run(() => encodeVariants(bytes, widths))
  } catch (error) {
    if (error instanceof WorkQueueFullError) return { ok: false, problem: 'busy' }
    throw error
  }
  if (!files) return { ok: false, problem: 'corrupt' }
  const hash = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16)
  const keyPrefix = `${AUTHOR_PHOTO_FOLDER}/${authorId}-${hash}`
  return {
    ok: true,
    resized: {
      photo: { keyPrefix, widths, formats: [...AUTHOR_PHOTO_FORMATS], width, height },
      files: files.map((file) => ({ key: `${keyPrefix}-${file.width}.${file.format}`, bytes: file.bytes })),
    },
  }
}

/** Every variant, from one decoding of the upload (upright, shrunk to the largest width); null if undecodable. */
async function encodeVariants(
  bytes: Uint8Array,
  widths: number[],
): Promise<{ width: number; format: 'webp' | 'jpeg'; bytes: Uint8Array }[] | null> {
  let master: Buffer
  try {
    master = await sharp(bytes, { limitInputPixels: MAX_PHOTO_PIXELS, failOn: 'error' })
      .rotate()
      .resize({ width: Math.max(...widths), withoutEnlargement: true })
      .png()
      .toBuffer()
  } catch {
    return null
  }
  return Promise.all(
    widths.flatMap((target) =>
      AUTHOR_PHOTO_FORMATS.map(async (format) => {
        const image = sharp(master).resize({ width: target, withoutEnlargement: true })
        const encoded =
          format === 'webp'
            ? await image.webp({ quality: 80 }).toBuffer()
            : await image.flatten({ background: '#ffffff' }).jpeg({ quality: 82, mozjpeg: true }).toBuffer()
        return { width: target, format, bytes: new Uint8Array(encoded) }
      }),
    ),
  )
}

export async function storeAuthorPhoto(storage: FileStorage, resized: ResizedPhoto): Promise<void> {
  for (const file of resized.files) await storage.put(file.key, file.bytes)
}

/** Removes a photo's variants (one replaced or removed, or one whose upload lost a race). */
export async function deleteAuthorPhoto(storage: FileStorage, photo: AuthorPhoto): Promise<void> {
  for (const key of authorPhotoFileKeys(photo)) await storage.delete(key)
}

/** The storage keys of a photo's variants: each width in each format. */
export function authorPhotoFileKeys(photo: AuthorPhoto): string[] {
  return photo.widths.flatMap((width) =>
    photo.formats.map((format) => `${photo.keyPrefix}-${width}.${format}`),
  )
}

/** Every author photo's variants an author names (what a backup must hold and the sweep of old files keeps). */
export async function listAuthorPhotoFilesInUse(db: Db): Promise<string[]> {
  const rows = await db.select({ photo: authors.photo }).from(authors).where(isNotNull(authors.photo))
  return rows.flatMap((row) => (row.photo ? authorPhotoFileKeys(row.photo) : []))
}
