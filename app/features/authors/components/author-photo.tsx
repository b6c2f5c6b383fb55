import {
  AUTHOR_PHOTO_FORMATS,
  authorPhotoSrcSet,
  authorPhotoUrl,
  type AuthorPhotoVariants,
} from '../author-photo.ts'

// Classes, not a style attribute: the store's Content Security Policy allows no inline style.
const sizeClasses = { 64: 'size-16', 96: 'size-24', 160: 'size-40' } as const

/**
 * An author's uploaded photo as `<picture>` (WebP, JPEG for the rest), square-cropped by CSS, its box reserved
 * by width and height (no layout shift). Nothing when there is no photo: the page does not invent a face.
 */
export function AuthorPhoto({
  photo,
  alt,
  size,
  className = '',
}: {
  photo: AuthorPhotoVariants | null
  alt: string
  /** The CSS pixels it is drawn at (square). */
  size: keyof typeof sizeClasses
  className?: string
}) {
  if (!photo) return null
  const fallback = photo.formats.includes('jpeg') ? 'jpeg' : photo.formats[photo.formats.length - 1]!
  const largest = photo.widths[photo.widths.length - 1]!
  return (
    <picture>
      {AUTHOR_PHOTO_FORMATS.filter((format) => format !== fallback && photo.formats.includes(format)).map(
        (format) => (
          <source
            key={format}
            type={`image/${format}`}
            srcSet={authorPhotoSrcSet(photo, format)}
            sizes={`${size}px`}
          />
        ),
      )}
      <img
        src={authorPhotoUrl(photo.keyPrefix, largest, fallback)}
        srcSet={authorPhotoSrcSet(photo, fallback)}
        sizes={`${size}px`}
        alt={alt}
        width={size}
        height={size}
        loading="lazy"
        className={`aspect-square rounded-full object-cover ${sizeClasses[size]} ${className}`}
      />
    </picture>
  )
}
