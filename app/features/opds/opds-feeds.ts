import { coverFileUrl, type CoverVariants } from '#app/features/catalog/cover-image.ts'
import { COVER_PNG_HEIGHT, COVER_PNG_WIDTH } from '#app/features/catalog/cover-png.ts'
import {
  atomAcquisition,
  atomNavigation,
  OPDS1_ROOT,
  OPDS2_ROOT,
  opds2Type,
  openSearchType,
} from './opds-links.ts'

/**
 * The store's catalogue as OPDS feeds, the format reading apps browse (KOReader, Thorium, Calibre, …): one
 * model of a feed, written as OPDS 1.2 (Atom XML, under /opds) and as OPDS 2.0 (JSON, under /opds/v2).
 * Paths in the model are relative to the version's root (`/new`, `/topics/go`); the writers make them absolute.
 */

export type OpdsBook = {
  id: string
  slug: string
  title: string
  author: { name: string; slug: string | null }
  summary: string
  priceCents: number
  currency: string
  coverPath: string
  cover: CoverVariants | null
  topics: { slug: string; name: string }[]
  /** When the book entered the store. */
  published: Date
  /** The same, to the microsecond, as the newest-first feed's cursor carries it. */
  publishedKey: string
  /** Its newest edition's date, or the book's own last change when that is later (a new price, a new cover). */
  updated: Date
  /** In the reader's library feed: the files they download (the newest edition's) and the editions before it. */
  owned?: {
    files: { format: 'pdf' | 'epub'; sizeBytes: number }[]
    edition: { number: number; publishedAt: Date } | null
    earlierEditions: { number: number; publishedAt: Date }[]
  }
}

export type NavigationEntry = {
  id: string
  title: string
  path: string
  description: string
  /** OPDS 1.2's relation for the linked feed (`http://opds-spec.org/sort/new`, …), else `subsection`. */
  rel?: string
  leadsTo: 'navigation' | 'acquisition'
  count?: number
}

export type Feed = {
  /** A stable name for the feed (its Atom id). */
  id: string
  title: string
  path: string
  updated: Date
  up?: string
  /** The next page's path, when there is one. */
  next?: string
  previous?: string
  /** Search results: how many in all, and the first item's position (OpenSearch). */
  results?: { total: number; startIndex: number; itemsPerPage: number; query: string }
} & (
  | { kind: 'navigation'; entries: NavigationEntry[] }
  | { kind: 'acquisition'; books: OpdsBook[]; itemsPerPage: number }
)

const rel = {
  image: 'http://opds-spec.org/image',
  thumbnail: 'http://opds-spec.org/image/thumbnail',
  buy: 'http://opds-spec.org/acquisition/buy',
  sample: 'http://opds-spec.org/acquisition/sample',
  acquisition: 'http://opds-spec.org/acquisition',
}

export function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

/** The price as a decimal string, as opds:price and OPDS 2's `price.value` want it. */
export function priceValue(cents: number): number {
  return Math.round(cents) / 100
}

function coverLinks(origin: string, book: OpdsBook) {
  if (book.cover?.formats.includes('jpeg')) {
    const widths = [...book.cover.widths].sort((a, b) => a - b)
    const largest = widths.at(-1)!
    const small = widths.find((width) => width >= 200) ?? largest
    const heightAt = (width: number) => Math.round((book.cover!.height * width) / book.cover!.width)
    return {
      image: {
        href: origin + coverFileUrl(book.cover.keyPrefix, largest, 'jpeg'),
        type: 'image/jpeg',
        width: largest,
        height: heightAt(largest),
      },
      thumbnail: {
        href: origin + coverFileUrl(book.cover.keyPrefix, small, 'jpeg'),
        type: 'image/jpeg',
        width: small,
        height: heightAt(small),
      },
    }
  }
  // OPDS wants a JPEG, PNG or GIF among a publication's images, and reading apps draw no SVG: the seed's SVG
  // cover drawn as a PNG.
  const png = {
    href: `${origin}/books/${book.slug}/cover.png`,
    type: 'image/png',
    width: COVER_PNG_WIDTH,
    height: COVER_PNG_HEIGHT,
  }
  return { image: png, thumbnail: png }
}

function bookLinks(origin: string, book: OpdsBook) {
  return {
    page: `${origin}/books/${book.slug}`,
    sampleEpub: `${origin}/read/${book.slug}/sample.epub`,
    samplePdf: `${origin}/books/${book.slug}/sample.pdf`,
    author: book.author.slug ? `${origin}/authors/${book.author.slug}` : null,
  }
}

const fileTypes = { pdf: 'application/pdf', epub: 'application/epub+zip' } as const

/** What an owned book's entry says of its editions. */
function editionsText(owned: NonNullable<OpdsBook['owned']>): string {
  const day = (date: Date) => date.toISOString().slice(0, 10)
  const current = owned.edition
    ? `Edition ${owned.edition.number}, published ${day(owned.edition.publishedAt)}.`
    : ''
  const earlier = owned.earlierEditions.map((edition) => `${edition.number} (${day(edition.publishedAt)})`)
  return [current, earlier.length > 0 ? `Earlier editions: ${earlier.join(', ')}.` : '']
    .filter(Boolean)
    .join(' ')
}

/** An owned book's downloads: the reader's stamped copies, in the newest edition. */
function ownedLinks(origin: string, book: OpdsBook) {
  return (book.owned?.files ?? []).map((file) => ({
    href: `${origin}/library/${book.slug}/download.${file.format}`,
    type: fileTypes[file.format],
    title: `${file.format.toUpperCase()}${book.owned?.edition ? `, edition ${book.owned.edition.number}` : ''}`,
  }))
}

/** OPDS 1.2: an Atom feed. */
export function opds1Xml(feed: Feed, origin: string): string {
  const url = (path: string) => xmlEscape(`${origin}${OPDS1_ROOT}${path}`)
  const selfType = feed.kind === 'navigation' ? atomNavigation : atomAcquisition
  const links = [
    `<link rel="self" href="${url(feed.path)}" type="${selfType}"/>`,
    `<link rel="start" href="${url('')}" type="${atomNavigation}" title="CodeBook"/>`,
    ...(feed.up !== undefined ? [`<link rel="up" href="${url(feed.up)}" type="${atomNavigation}"/>`] : []),
    `<link rel="search" href="${url('/opensearch.xml')}" type="${openSearchType}" title="Search CodeBook"/>`,
    ...(feed.next ? [`<link rel="next" href="${url(feed.next)}" type="${selfType}"/>`] : []),
    ...(feed.previous ? [`<link rel="previous" href="${url(feed.previous)}" type="${selfType}"/>`] : []),
    `<link rel="alternate" href="${xmlEscape(`${origin}${OPDS2_ROOT}${feed.path}`)}" type="${opds2Type}"/>`,
  ]
  const search = feed.results
    ? [
        `<opensearch:totalResults>${feed.results.total}</opensearch:totalResults>`,
        `<opensearch:startIndex>${feed.results.startIndex}</opensearch:startIndex>`,
        `<opensearch:itemsPerPage>${feed.results.itemsPerPage}</opensearch:itemsPerPage>`,
        `<opensearch:Query role="request" searchTerms="${xmlEscape(feed.results.query)}"/>`,
      ]
    : []
  const entries =
    feed.kind === 'navigation'
      ? feed.entries.map(
          (entry) => `<entry>
    <title>${xmlEscape(entry.title)}</title>
    <id>urn:codebook:opds:${xmlEscape(entry.id)}</id>
    <updated>${feed.updated.toISOString()}</updated>
    <content type="text">${xmlEscape(entry.description)}</content>
    <link rel="${xmlEscape(entry.rel ?? 'subsection')}" href="${url(entry.path)}" type="${entry.leadsTo === 'navigation' ? atomNavigation : atomAcquisition}"${entry.count !== undefined ? ` thr:count="${entry.count}"` : ''}/>
  </entry>`,
        )
      : feed.books.map((book) => {
          const links = bookLinks(origin, book)
          const covers = coverLinks(origin, book)
          return `<entry>
    <title>${xmlEscape(book.title)}</title>
    <id>urn:uuid:${book.id}</id>
    <updated>${book.updated.toISOString()}</updated>
    <published>${book.published.toISOString()}</published>
    <author><name>${xmlEscape(book.author.name)}</name>${links.author ? `<uri>${xmlEscape(links.author)}</uri>` : ''}</author>
    <dc:language>en</dc:language>
    <dc:publisher>CodeBook</dc:publisher>
    <dc:issued>${book.published.toISOString().slice(0, 10)}</dc:issued>
${book.topics.map((topic) => `    <category scheme="${xmlEscape(`${origin}/topics`)}" term="${xmlEscape(topic.slug)}" label="${xmlEscape(topic.name)}"/>`).join('\n')}
    <summary type="text">${xmlEscape(book.summary)}</summary>
    <link rel="${rel.image}" href="${xmlEscape(covers.image.href)}" type="${covers.image.type}"/>
    <link rel="${rel.thumbnail}" href="${xmlEscape(covers.thumbnail.href)}" type="${covers.thumbnail.type}"/>
    <link rel="alternate" href="${xmlEscape(links.page)}" type="text/html" title="${xmlEscape(book.title)} at CodeBook"/>
${book.owned ? ownedXml(origin, book) : forSaleXml(book, links)}
  </entry>`
        })
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/terms/" xmlns:opds="http://opds-spec.org/2010/catalog" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:thr="http://purl.org/syndication/thread/1.0" xml:lang="en">
  <id>urn:codebook:opds:${xmlEscape(feed.id)}</id>
  <title>${xmlEscape(feed.title)}</title>
  <updated>${feed.updated.toISOString()}</updated>
  <author><name>CodeBook</name><uri>${xmlEscape(origin)}</uri></author>
  <icon>${xmlEscape(`${origin}/favicon.svg`)}</icon>
  ${[...links, ...search].join('\n  ')}
  ${entries.join('\n  ')}
</feed>
`
}

function forSaleXml(book: OpdsBook, links: ReturnType<typeof bookLinks>): string {
  return `    <link rel="${rel.buy}" href="${xmlEscape(links.page)}" type="text/html">
      <opds:price currencycode="${xmlEscape(book.currency)}">${priceValue(book.priceCents).toFixed(2)}</opds:price>
      <opds:indirectAcquisition type="application/epub+zip"/>
      <opds:indirectAcquisition type="application/pdf"/>
    </link>
    <link rel="${rel.sample}" href="${xmlEscape(links.sampleEpub)}" type="application/epub+zip" title="Free sample (EPUB)"/>
    <link rel="${rel.sample}" href="${xmlEscape(links.samplePdf)}" type="application/pdf" title="Free sample (PDF)"/>`
}

function ownedXml(origin: string, book: OpdsBook): string {
  return [
    `    <content type="text">${xmlEscape(editionsText(book.owned!))}</content>`,
    ...ownedLinks(origin, book).map(
      (link) =>
        `    <link rel="${rel.acquisition}" href="${xmlEscape(link.href)}" type="${link.type}" title="${xmlEscape(link.title)}"/>`,
    ),
  ].join('\n')
}

/** OPDS 2.0: the same feed as JSON. */
export function opds2Json(feed: Feed, origin: string): unknown {
  const url = (path: string) => `${origin}${OPDS2_ROOT}${path}`
  const links = [
    { rel: 'self', href: url(feed.path), type: opds2Type },
    { rel: 'start', href: url(''), type: opds2Type, title: 'CodeBook' },
    ...(feed.up !== undefined ? [{ rel: 'up', href: url(feed.up), type: opds2Type }] : []),
    { rel: 'search', href: `${url('/search')}{?query}`, type: opds2Type, templated: true },
    ...(feed.next ? [{ rel: 'next', href: url(feed.next), type: opds2Type }] : []),
    ...(feed.previous ? [{ rel: 'previous', href: url(feed.previous), type: opds2Type }] : []),
    {
      rel: 'alternate',
      href: `${origin}${OPDS1_ROOT}${feed.path}`,
      type: feed.kind === 'navigation' ? atomNavigation : atomAcquisition,
    },
  ]
  const metadata = {
    title: feed.title,
    modified: feed.updated.toISOString(),
    ...(feed.kind === 'acquisition' ? { itemsPerPage: feed.itemsPerPage } : {}),
    ...(feed.results
      ? {
          numberOfItems: feed.results.total,
          currentPage: Math.ceil(feed.results.startIndex / feed.results.itemsPerPage),
        }
      : {}),
  }
  if (feed.kind === 'navigation') {
    return {
      metadata,
      links,
      navigation: feed.entries.map((entry) => ({
        href: url(entry.path),
        title: entry.title,
        type: opds2Type,
        ...(entry.rel && entry.rel !== 'subsection' ? { rel: entry.rel } : {}),
        ...(entry.count !== undefined ? { properties: { numberOfItems: entry.count } } : {}),
      })),
    }
  }
  return {
    metadata,
    links,
    publications: feed.books.map((book) => opds2Publication(book, origin)),
  }
}

export function opds2Publication(book: OpdsBook, origin: string) {
  const links = bookLinks(origin, book)
  const covers = coverLinks(origin, book)
  return {
    metadata: {
      '@type': 'http://schema.org/Book',
      identifier: `urn:uuid:${book.id}`,
      title: book.title,
      author: {
        name: book.author.name,
        ...(links.author ? { links: [{ href: links.author, type: 'text/html' }] } : {}),
      },
      publisher: 'CodeBook',
      language: 'en',
      published: book.published.toISOString(),
      modified: book.updated.toISOString(),
      description: book.owned ? `${book.summary} ${editionsText(book.owned)}`.trim() : book.summary,
      subject: book.topics.map((topic) => ({
        name: topic.name,
        code: topic.slug,
        scheme: `${origin}/topics`,
        links: [{ href: `${origin}${OPDS2_ROOT}/topics/${topic.slug}`, type: opds2Type }],
      })),
    },
    links: [
      { rel: 'alternate', href: links.page, type: 'text/html', title: `${book.title} at CodeBook` },
      ...(book.owned
        ? ownedLinks(origin, book).map((link) => ({ rel: rel.acquisition, ...link }))
        : [
            {
              rel: rel.buy,
              href: links.page,
              type: 'text/html',
              properties: {
                price: { currency: book.currency, value: priceValue(book.priceCents) },
                indirectAcquisition: [{ type: 'application/epub+zip' }, { type: 'application/pdf' }],
              },
            },
            {
              rel: rel.sample,
              href: links.sampleEpub,
              type: 'application/epub+zip',
              title: 'Free sample (EPUB)',
            },
            { rel: rel.sample, href: links.samplePdf, type: 'application/pdf', title: 'Free sample (PDF)' },
          ]),
    ],
    images: [
      {
        href: covers.image.href,
        type: covers.image.type,
        ...('width' in covers.image ? { width: covers.image.width, height: covers.image.height } : {}),
      },
      ...(covers.thumbnail.href !== covers.image.href
        ? [
            {
              href: covers.thumbnail.href,
              type: covers.thumbnail.type,
              ...('width' in covers.thumbnail
                ? { width: covers.thumbnail.width, height: covers.thumbnail.height }
                : {}),
            },
          ]
        : []),
    ],
  }
}

/** The OpenSearch description OPDS 1.2 clients read to learn the search URL. */
export function openSearchXml(origin: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
  <ShortName>CodeBook</ShortName>
  <Description>Search CodeBook's computer-science eBooks by title, author, topic or description.</Description>
  <InputEncoding>UTF-8</InputEncoding>
  <OutputEncoding>UTF-8</OutputEncoding>
  <Url type="${atomAcquisition}" template="${xmlEscape(`${origin}${OPDS1_ROOT}/search?q={searchTerms}`)}"/>
  <Url type="text/html" template="${xmlEscape(`${origin}/search?q={searchTerms}`)}"/>
</OpenSearchDescription>
`
}
