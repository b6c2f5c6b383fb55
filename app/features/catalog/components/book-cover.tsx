import { COVER_FORMATS, coverFileUrl, coverSrcSet, type CoverVariants } from '../cover-image.ts'

const mimeTypes = { avif: 'image/avif', webp: 'image/webp', jpeg: 'image/jpeg' } as const

/**
 * A book's cover: an uploaded one as `<picture>` (AVIF, then WebP, JPEG for the rest) at the widths it was
 * resized to, or the seed's SVG. Width and height are always set (the uploaded image's own proportions), so
 * the page reserves its box before the image arrives: no layout shift.
 */
export function BookCover({
  cover,
  coverPath,
  alt,
  sizes,
  className,
  eager = false,
}: {
  cover: CoverVariants | null
  coverPath: string
  alt: string
  /** The CSS width the image is drawn at, for the browser's choice from `srcset`. */
  sizes: string
  className?: string
  eager?: boolean
}) {
  const loading = eager ? 'eager' : 'lazy'
  const fetchPriority = eager ? 'high' : 'auto'
  if (!cover) {
    return (
      <img
        src={coverPath}
        alt={alt}
        width={400}
        height={600}
        loading={loading}
        fetchPriority={fetchPriority}
        className={className}
      />
    )
  }
  const fallback = cover.formats.includes('jpeg') ? 'jpeg' : cover.formats[cover.formats.length - 1]!
  const largest = cover.widths[cover.widths.length - 1]!
  return (
    <picture>
      {COVER_FORMATS.filter((format) => format !== fallback && cover.formats.includes(format)).map(
        (format) => (
          <source key={format} type={mimeTypes[format]} srcSet={coverSrcSet(cover, format)} sizes={sizes} />
        ),
      )}
      <img
        src={coverFileUrl(cover.keyPrefix, largest, fallback)}
        srcSet={coverSrcSet(cover, fallback)}
        sizes={sizes}
        alt={alt}
        width={cover.width}
        height={cover.height}
        loading={loading}
        fetchPriority={fetchPriority}
        className={className}
      />
    </picture>
  )
}
