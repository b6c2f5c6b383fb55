import crypto from 'node:crypto'
import sharp from 'sharp'
import { COVER_PNG_HEIGHT, COVER_PNG_WIDTH } from './cover-png.ts'

/**
 * A book's cover as a 400×600 PNG, for what cannot show the seed's SVG covers: reading apps (OPDS asks for a
 * JPEG, PNG or GIF among a publication's images; KOReader draws no SVG). Drawn by sharp on first request and
 * kept in memory under the book's id and last change (an edit makes a new key; the oldest age out).
 */

export type CoverPng = { png: Buffer; etag: string }

const MAX_CACHED = 300
const cache = new Map<string, Promise<CoverPng | null>>()

export function coverPng(
  book: { id: string; updatedAt: Date },
  source: () => Promise<Uint8Array | null>,
): Promise<CoverPng | null> {
  const key = `${book.id}:${book.updatedAt.getTime()}`
  const hit = cache.get(key)
  if (hit) return hit
  const made = (async () => {
    const bytes = await source()
    if (!bytes) return null
    const png = await sharp(bytes, { density: 144 })
      .resize(COVER_PNG_WIDTH, COVER_PNG_HEIGHT, { fit: 'cover' })
      .png({ compressionLevel: 9 })
      .toBuffer()
    return { png, etag: `"${crypto.createHash('sha256').update(png).digest('hex').slice(0, 32)}"` }
  })()
  cache.set(key, made)
  made.catch(() => cache.delete(key))
  while (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!)
  return made
}
