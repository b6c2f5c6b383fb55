import crypto from 'node:crypto'
import sharp from 'sharp'
import { detectImageType } from '#app/features/catalog/covers.server.ts'
import type { FileStorage } from '#app/server/storage.server.ts'
import { WorkQueueFullError, type WorkQueue } from '#app/server/work-queue.server.ts'
import type { StoreLogo } from './store-settings.ts'

export const LOGO_KEY_FOLDER = 'logos'
export const MAX_LOGO_BYTES = 2 * 1024 * 1024
/** A logo is shown 40 pixels high; anything beyond a designer's export is a decompression bomb, not a logo. */
export const MAX_LOGO_PIXELS = 16_000_000
/** Twice the header's 40 pixels, for sharp screens. */
export const LOGO_HEIGHT = 80
/** A wordmark may be wide, but not a banner: 6 : 1 at most (the header shows it up to 240 pixels wide). */
export const LOGO_MAX_WIDTH = 6 * LOGO_HEIGHT

/** A stored logo file's name: `<hash>.<format>`, nothing else is ever served from /media/logo/. */
export const logoFilePattern = /^[a-f0-9]{16}\.(webp|png)$/

export const logoMessages = {
  tooLarge: `This file is larger than ${MAX_LOGO_BYTES / 1024 / 1024} MB. A logo is small: please upload a smaller image.`,
  notAnImage:
    'This file is not a PNG, JPEG, WebP or AVIF image (its content was checked, not its name). Please upload a logo image.',
  corrupt: 'This image could not be read: the file looks damaged. Please export it again and upload it.',
  tooManyPixels: `This image has more than ${MAX_LOGO_PIXELS / 1_000_000} megapixels. The logo is shown 40 pixels high: please export it smaller (400 × 400 pixels is plenty).`,
  busy: 'Another image is being resized right now. Please try again in a few seconds.',
} as const
export type LogoProblem = keyof typeof logoMessages

export type ResizedLogo = { logo: StoreLogo; files: { key: string; bytes: Uint8Array }[] }

/**
 * Checks an uploaded logo by its content (as covers are) and resizes it to the header's height, twice over,
 * as WebP and PNG (transparency kept). The names hold a hash of the upload, so a new logo has new URLs and
 * old ones may be cached for ever. Decoding waits its turn in the process's image queue.
 */
export async function resizeLogo(
  work: WorkQueue,
  bytes: Uint8Array,
): Promise<{ ok: true; resized: ResizedLogo } | { ok: false; problem: LogoProblem }> {
  if (bytes.byteLength > MAX_LOGO_BYTES) return { ok: false, problem: 'tooLarge' }
  if (!detectImageType(bytes)) return { ok: false, problem: 'notAnImage' }
  try {
    // The header only: nothing is decoded yet.
    const metadata = await sharp(bytes, { limitInputPixels: false, failOn: 'error' }).metadata()
    if (!metadata.width || !metadata.height) return { ok: false, problem: 'corrupt' }
    if (metadata.width * metadata.height > MAX_LOGO_PIXELS) return { ok: false, problem: 'tooManyPixels' }
  } catch {
    return { ok: false, problem: 'corrupt' }
  }
  let encoded: { webp: Buffer; png: Buffer; width: number; height: number } | null
  try {
    encoded = await work.run(async () => {
      try {
        const { data, info } = await sharp(bytes, { limitInputPixels: MAX_LOGO_PIXELS, failOn: 'error' })
          .rotate()
          .resize({
            height: LOGO_HEIGHT,
            width: LOGO_MAX_WIDTH,
            fit: 'inside',
            withoutEnlargement: true,
          })
          .ensureAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true })
        const raw = () => sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } })
        const [webp, png] = await Promise.all([
          raw().webp({ quality: 90, alphaQuality: 100 }).toBuffer(),
          raw().png({ compressionLevel: 9, palette: true }).toBuffer(),
        ])
        return { webp, png, width: info.width, height: info.height }
      } catch {
        return null
      }
    })
  } catch (error) {
    if (error instanceof WorkQueueFullError) return { ok: false, problem: 'busy' }
    throw error
  }
  if (!encoded) return { ok: false, problem: 'corrupt' }
  const hash = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16)
  const logo: StoreLogo = {
    webp: `${hash}.webp`,
    png: `${hash}.png`,
    width: encoded.width,
    height: encoded.height,
  }
  return {
    ok: true,
    resized: {
      logo,
      files: [
        { key: `${LOGO_KEY_FOLDER}/${logo.webp}`, bytes: new Uint8Array(encoded.webp) },
        { key: `${LOGO_KEY_FOLDER}/${logo.png}`, bytes: new Uint8Array(encoded.png) },
      ],
    },
  }
}

export async function storeLogo(storage: FileStorage, resized: ResizedLogo): Promise<void> {
  for (const file of resized.files) await storage.put(file.key, file.bytes)
}

/** Removes a logo's files (one replaced or removed); the same upload again keeps its files. */
export async function deleteLogo(storage: FileStorage, logo: StoreLogo): Promise<void> {
  for (const key of logoFileKeys(logo)) await storage.delete(key)
}

/** The storage keys of a logo's files. */
export function logoFileKeys(logo: StoreLogo): string[] {
  return [logo.webp, logo.png].map((file) => `${LOGO_KEY_FOLDER}/${file}`)
}
