import type { Crumb } from '#app/features/seo/breadcrumbs.ts'

type BundleForSeo = {
  slug: string
  title: string
  description: string
  priceCents: number
  currency: string
  forSale: boolean
  books: readonly { slug: string; title: string; author: string }[]
}

/** Where a bundle's page sits: Home › All eBooks › the bundle. */
export function bundleTrail(bundle: { slug: string; title: string }): Crumb[] {
  return [
    { name: 'Home', path: '/' },
    { name: 'All eBooks', path: '/AllBooks' },
    { name: bundle.title, path: `/bundles/${bundle.slug}` },
  ]
}

/**
 * A bundle for search engines: a schema.org ProductCollection of its books (each a Book with its page), with
 * the bundle's offer at its price.
 */
export function bundleJsonLd(origin: string, bundle: BundleForSeo, imagePath: string) {
  const url = `${origin}/bundles/${bundle.slug}`
  return {
    '@context': 'https://schema.org',
    '@type': 'ProductCollection',
    name: bundle.title,
    url,
    image: `${origin}${imagePath}`,
    ...(bundle.description ? { description: bundle.description } : {}),
    includesObject: bundle.books.map((book) => ({
      '@type': 'TypeAndQuantityNode',
      amountOfThisGood: 1,
      typeOfGood: {
        '@type': 'Book',
        name: book.title,
        url: `${origin}/books/${book.slug}`,
        author: { '@type': 'Person', name: book.author },
        bookFormat: 'https://schema.org/EBook',
      },
    })),
    offers: {
      '@type': 'Offer',
      url,
      price: (bundle.priceCents / 100).toFixed(2),
      priceCurrency: bundle.currency,
      availability: bundle.forSale ? 'https://schema.org/InStock' : 'https://schema.org/OutOfStock',
    },
  }
}
