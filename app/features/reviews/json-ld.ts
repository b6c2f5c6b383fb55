import type { Book, WithContext } from 'schema-dts'
import { formatRatingValue, type ShownRating } from '#app/features/catalog/rating.ts'

type BookFacts = {
  title: string
  author: string
  /** The author's page (/authors/<slug>), absolute. */
  authorUrl?: string
  url: string
  priceCents: number
  currency: string
  available: boolean
}
type ReviewFacts = { author: string; rating: number; title: string; createdAt: string }

/**
 * The book page's structured data: a schema.org `Book` with its offer, an `AggregateRating` only when readers
 * have rated it (the seed's prior is not a rating anyone gave), and the reviews shown on the page — their
 * author, date, title and stars; the text is on the page once, not again here, since it is what makes a page of
 * reviews heavier than a page without (docs/decisions/016). Typed with
 * schema-dts, Google's TypeScript definitions of schema.org, so that a wrong property or type does not compile.
 */
export function bookJsonLd(book: BookFacts, rating: ShownRating, reviews: ReviewFacts[]): WithContext<Book> {
  return {
    '@context': 'https://schema.org',
    '@type': 'Book',
    name: book.title,
    author: {
      '@type': 'Person',
      name: book.author,
      ...(book.authorUrl ? { url: book.authorUrl } : {}),
    },
    url: book.url,
    bookFormat: 'https://schema.org/EBook',
    offers: {
      '@type': 'Offer',
      price: (book.priceCents / 100).toFixed(2),
      priceCurrency: book.currency,
      availability: book.available ? 'https://schema.org/InStock' : 'https://schema.org/OutOfStock',
      url: book.url,
    },
    ...(rating.count > 0
      ? {
          aggregateRating: {
            '@type': 'AggregateRating',
            ratingValue: formatRatingValue(rating.value),
            ratingCount: rating.count,
            bestRating: 5,
            worstRating: 1,
          },
          review: reviews.map((review) => ({
            '@type': 'Review',
            author: { '@type': 'Person', name: review.author },
            datePublished: review.createdAt.slice(0, 10),
            ...(review.title ? { name: review.title } : {}),
            reviewRating: { '@type': 'Rating', ratingValue: review.rating, bestRating: 5, worstRating: 1 },
          })),
        }
      : {}),
  }
}
