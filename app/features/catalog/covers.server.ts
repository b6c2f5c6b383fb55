import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import sharp, { type OutputInfo, type Sharp } from 'sharp'
import { isNotNull } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { books, type CoverImage } from '#app/server/db/schema/index.server.ts'
import { findProjectRoot } from '#app/server/project-root.server.ts'
import type { FileStorage } from '#app/server/storage.server.ts'
import { WorkQueueFullError, type WorkQueue } from '#app/server/work-queue.server.ts'
import { COVER_FORMATS, COVER_KEY_FOLDER, COVER_WIDTHS, type CoverFormat } from './cover-image.ts'

export const MAX_COVER_BYTES = 10 * 1024 * 1024
/**
 * A cover is shown at most 800 pixels wide, and a designer's export is a few megapixels (2000 × 3000 is 6).
 * Far beyond is a decompression bomb, not a cover: a 7000 × 7000 PNG of 160 KB decodes to 150 MB of pixels
 * (issue 28). The header says how many there are, so such an image is refused before it is decoded.
 */
export const MAX_COVER_PIXELS = 40_000_000

export const coverMessages = {
  missing: 'Please choose an image file to upload.',
  tooLarge: `This file is larger than ${MAX_COVER_BYTES / 1024 / 1024} MB. Please upload a smaller image.`,
  notAnImage:
    'This file is not a JPEG, PNG, WebP or AVIF image (its content was checked, not its name). Please upload a cover image.',
  corrupt: 'This image could not be read: the file looks damaged. Please export it again and upload it.',
  tooManyPixels: `This image has more than ${MAX_COVER_PIXELS / 1_000_000} megapixels. Covers are shown at most 800 pixels wide: please export it smaller (2000 × 3000 pixels is plenty) and upload it.`,
  busy: 'Another cover is being resized right now. Please try again in a few seconds.',
  conflict:
    'Someone else changed this book meanwhile, so the cover was not saved. Please reload the page and upload it again.',
} as const

/** The message for a problem named in a URL (`?cover-error=`); null for a name it does not know, `__proto__` too. */
export function coverMessageFor(problem: string | null): string | null {
  return problem !== null && Object.hasOwn(coverMessages, problem)
    ? coverMessages[problem as keyof typeof coverMessages]
    : null
}

export type SourceFormat = 'jpeg' | 'png' | 'webp' | 'avif'

/** The image type the bytes start with, whatever the file is called or claims to be; null for anything else. */
export function detectImageType(bytes: Uint8Array): SourceFormat | null {
  const at = (offset: number, signature: number[]) =>
    signature.every((byte, index) => bytes[offset + index] === byte)
  const ascii = (offset: number, length: number) =>
    String.fromCharCode(...bytes.subarray(offset, offset + length))
  if (at(0, [0xff, 0xd8, 0xff])) return 'jpeg'
  if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png'
  if (ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') return 'webp'
  // ISO-BMFF: [box size]['ftyp'][major brand][minor version][compatible brands…]
  if (bytes.length >= 16 && ascii(4, 4) === 'ftyp') {
    const boxSize = Math.min(bytes.length, new DataView(bytes.buffer, bytes.byteOffset).getUint32(0))
    const brands = [ascii(8, 4)]
    for (let offset = 16; offset + 4 <= boxSize; offset += 4) brands.push(ascii(offset, 4))
    if (brands.some((brand) => brand === 'avif' || brand === 'avis')) return 'avif'
  }
  return null
}

export type CoverProblem = Exclude<keyof typeof coverMessages, 'conflict'>

export type ResizedCover = { cover: CoverImage; files: { key: string; bytes: Uint8Array }[] }

/**
 * Checks an uploaded cover by its content and resizes it into every width the pages use (never enlarged) in
 * AVIF, WebP and JPEG. Keys carry the book id and a hash of the upload, so a new cover has new URLs and old
 * ones can be cached for ever. The cheap checks (size, type, pixels in the header) come first; the decoding
 * and encoding wait their turn in `work`, the process's image queue, and an upload finding it full is told
 * to try again (`busy`).
 */
export async function resizeCover(
  work: WorkQueue,
  bookId: string,
  bytes: Uint8Array,
): Promise<{ ok: true; resized: ResizedCover } | { ok: false; problem: CoverProblem }> {
  if (bytes.byteLength === 0) return { ok: false, problem: 'missing' }
  if (bytes.byteLength > MAX_COVER_BYTES) return { ok: false, problem: 'tooLarge' }
  const type = detectImageType(bytes)
  if (!type) return { ok: false, problem: 'notAnImage' }
  let width: number
  let height: number
  try {
    // The header only: sharp decodes nothing here, so its pixel limit is not needed yet (it applies below).
    const metadata = await sharp(bytes, { limitInputPixels: false, failOn: 'error' }).metadata()
    if (!metadata.width || !metadata.height) return { ok: false, problem: 'corrupt' }
    if (metadata.width * metadata.height > MAX_COVER_PIXELS) return { ok: false, problem: 'tooManyPixels' }
    // EXIF orientations 5–8 turn the picture a quarter: its box is the other way round.
    const turned = (metadata.orientation ?? 1) >= 5
    width = turned ? metadata.height : metadata.width
    height = turned ? metadata.width : metadata.height
  } catch {
    return { ok: false, problem: 'corrupt' }
  }
  const widths = [...new Set(COVER_WIDTHS.map((wanted) => Math.min(wanted, width)))]
  let encoded: { width: number; format: CoverFormat; bytes: Uint8Array }[] | null
  try {
    encoded = await work.run(() => encodeVariants(bytes, widths))
  } catch (error) {
    if (error instanceof WorkQueueFullError) return { ok: false, problem: 'busy' }
    throw error
  }
  if (!encoded) return { ok: false, problem: 'corrupt' }
  const hash = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16)
  const keyPrefix = `${COVER_KEY_FOLDER}/${bookId}-${hash}`
  return {
    ok: true,
    resized: {
      cover: { keyPrefix, widths, formats: [...COVER_FORMATS], width, height },
      files: encoded.map((file) => ({ key: `${keyPrefix}-${file.width}.${file.format}`, bytes: file.bytes })),
    },
  }
}

/**
 * Every variant of the image, or null when it cannot be decoded. The whole image is decoded once (which is
 * what finds a damaged file: a header alone can look fine), upright and shrunk to the largest width, and
 * every variant is encoded from that small copy: decoding the upload once per variant cost a 40-megapixel
 * PNG ~9 s and +450 MB (decision 012).
 */
async function encodeVariants(
  bytes: Uint8Array,
  widths: number[],
): Promise<{ width: number; format: CoverFormat; bytes: Uint8Array }[] | null> {
  let master: { data: Buffer; info: OutputInfo }
  try {
    master = await sharp(bytes, { limitInputPixels: MAX_COVER_PIXELS, failOn: 'error' })
      .rotate()
      .resize({ width: Math.max(...widths), withoutEnlargement: true })
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true })
  } catch {
    return null
  }
  const { width, height } = master.info
  const channels = master.info.channels as 1 | 2 | 3 | 4
  const fromMaster = (target: number) => {
    const image = sharp(master.data, { raw: { width, height, channels } })
    return target < width ? image.resize({ width: target }) : image
  }
  return Promise.all(
    widths.flatMap((target) =>
      COVER_FORMATS.map(async (format) => ({
        width: target,
        format,
        bytes: new Uint8Array(await encode(fromMaster(target), format)),
      })),
    ),
  )
}

function encode(image: Sharp, format: CoverFormat): Promise<Buffer> {
  // The alpha channel of a PNG is flattened on white for JPEG, which has none.
  if (format === 'avif') return image.avif({ quality: 55, effort: 2 }).toBuffer()
  if (format === 'webp') return image.webp({ quality: 78 }).toBuffer()
  return image.flatten({ background: '#ffffff' }).jpeg({ quality: 80, mozjpeg: true }).toBuffer()
}

export async function storeCover(storage: FileStorage, resized: ResizedCover): Promise<void> {
  for (const file of resized.files) await storage.put(file.key, file.bytes)
}

/** Removes a cover's variants (one replaced, or one whose upload lost a race). */
export async function deleteCover(storage: FileStorage, cover: CoverImage): Promise<void> {
  for (const key of coverFileKeys(cover)) await storage.delete(key)
}

/** The storage keys of a cover's variants: each width in each format. */
export function coverFileKeys(cover: CoverImage): string[] {
  return cover.widths.flatMap((width) =>
    cover.formats.map((format) => `${cover.keyPrefix}-${width}.${format}`),
  )
}

/** Every uploaded cover's variants a book names (what a backup must hold and the sweep of old files keeps). */
export async function listCoverFilesInUse(db: Db): Promise<string[]> {
  const rows = await db.select({ cover: books.cover }).from(books).where(isNotNull(books.cover))
  return rows.flatMap((row) => (row.cover ? coverFileKeys(row.cover) : []))
}

/**
 * The cover's picture as stored, to draw it elsewhere (the Open Graph image): an upload's largest JPEG, else the
 * seed's SVG from public/. Null when the file is missing.
 */
export async function readCoverSource(
  storage: FileStorage,
  book: { cover: CoverImage | null; coverPath: string },
): Promise<Uint8Array | null> {
  if (book.cover) {
    const width = Math.max(...book.cover.widths)
    return storage.read(`${book.cover.keyPrefix}-${width}.jpeg`)
  }
  // Seed covers are /covers/<name>.svg, shipped in public/ (the build copies them beside the client assets).
  const name = /^\/covers\/([a-z0-9-]+\.svg)$/.exec(book.coverPath)?.[1]
  if (!name) return null
  return fs.promises.readFile(path.join(findProjectRoot(), 'public', 'covers', name)).catch(() => null)
}
