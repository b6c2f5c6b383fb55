import crypto from 'node:crypto'
import { LRUCache } from 'lru-cache'
import sharp from 'sharp'
import { COVER_PNG_HEIGHT, COVER_PNG_WIDTH } from './cover-png.ts'

/**
 * A book's cover as a 400×600 PNG, for what cannot show the seed's SVG covers: reading apps (OPDS asks for a
 * JPEG, PNG or GIF among a publication's images; KOReader draws no SVG). Drawn by sharp on first request and
 * kept in memory under the book's id and last change (an edit makes a new key; the oldest age out).
 */

export type CoverPng = { png: Buffer; etag: string }

type CoverContext = { source: () => Promise<Uint8Array | null> }

/** Drawn covers by book and version, at most 32 MB of them; one drawing per key at a time (`fetch`). */
const cache = new LRUCache<string, CoverPng, CoverContext>({
  maxSize: 32 * 1024 * 1024,
  sizeCalculation: (cover) => cover.png.length,
  fetchMethod: async (_key, _stale, { context }) => {
    const bytes = await context.source()
    // Nothing to draw (no cover file): not kept, so a cover added later is found.
    if (!bytes) return undefined
    const png = await sharp(bytes, { density: 144 })
      .resize(COVER_PNG_WIDTH, COVER_PNG_HEIGHT, { fit: 'cover' })
      .png({ compressionLevel: 9 })
      .toBuffer()
    return { png, etag: `"${crypto.createHash('sha256').update(png).digest('hex').slice(0, 32)}"` }
  },
})

export async function coverPng(
  book: { id: string; updatedAt: Date },
  source: () => Promise<Uint8Array | null>,
): Promise<CoverPng | null> {
  return (await cache.fetch(`${book.id}:${book.updatedAt.getTime()}`, { context: { source } })) ?? null
}
