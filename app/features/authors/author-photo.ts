/**
 * Where an author's uploaded photo is served (routes/media-author.ts) and how a page picks a size. No server
 * imports: the photo component builds its `srcset` from this.
 */
export type AuthorPhotoFormat = 'webp' | 'jpeg'

/** As stored in authors.photo (app/server/db/schema/authors.server.ts, AuthorPhoto). */
export type AuthorPhotoVariants = {
  keyPrefix: string
  widths: number[]
  formats: AuthorPhotoFormat[]
  width: number
  height: number
}

/** Widths the pages draw a photo at, 1× and 2×: the book page's 64 CSS px, the author page's up to 192. */
export const AUTHOR_PHOTO_WIDTHS = [128, 384] as const
/** Best first: WebP for every current browser, JPEG as the `<img>` fallback. */
export const AUTHOR_PHOTO_FORMATS = ['webp', 'jpeg'] as const satisfies readonly AuthorPhotoFormat[]

export const AUTHOR_PHOTO_FOLDER = 'authors'
/** A variant's file name, which is also its URL's last segment: `<author id>-<content hash>-<width>.<format>`. */
export const authorPhotoFilePattern = /^[0-9a-f-]{36}-[0-9a-f]{16}-\d{2,4}\.(webp|jpeg)$/

export function authorPhotoUrl(keyPrefix: string, width: number, format: AuthorPhotoFormat): string {
  const name = keyPrefix.slice(AUTHOR_PHOTO_FOLDER.length + 1)
  return `/media/authors/${name}-${width}.${format}`
}

export function authorPhotoSrcSet(photo: AuthorPhotoVariants, format: AuthorPhotoFormat): string {
  return photo.widths.map((width) => `${authorPhotoUrl(photo.keyPrefix, width, format)} ${width}w`).join(', ')
}

export function authorPath(slug: string): string {
  return `/authors/${slug}`
}
