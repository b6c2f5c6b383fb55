/**
 * Where an uploaded cover's variants are served (routes/media-cover.ts) and how a page picks one. No server
 * imports: the cover component builds its `srcset` from this.
 */
export type CoverFormat = 'avif' | 'webp' | 'jpeg'

/** As stored in books.cover (app/server/db/schema/catalog.server.ts, CoverImage). */
export type CoverVariants = {
  keyPrefix: string
  widths: number[]
  formats: CoverFormat[]
  width: number
  height: number
}

/** Widths the pages draw covers at, 1× and 2×: cards up to 256 CSS px, the book page up to 384. */
export const COVER_WIDTHS = [200, 400, 800] as const
/** Best first: the browser takes the first `<source>` it can decode; JPEG is the `<img>` fallback. */
export const COVER_FORMATS = ['avif', 'webp', 'jpeg'] as const satisfies readonly CoverFormat[]

export const COVER_KEY_FOLDER = 'covers'
/** A variant's file name, which is also its URL's last segment: `<book id>-<content hash>-<width>.<format>`. */
export const coverFilePattern = /^[0-9a-f-]{36}-[0-9a-f]{16}-\d{2,4}\.(avif|webp|jpeg)$/

export function coverFileUrl(keyPrefix: string, width: number, format: CoverFormat): string {
  const name = keyPrefix.slice(COVER_KEY_FOLDER.length + 1)
  return `/media/covers/${name}-${width}.${format}`
}

export function coverSrcSet(cover: CoverVariants, format: CoverFormat): string {
  return cover.widths.map((width) => `${coverFileUrl(cover.keyPrefix, width, format)} ${width}w`).join(', ')
}
