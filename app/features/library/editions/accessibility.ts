import type { Book } from 'schema-dts'

/**
 * What the store's EPUBs claim about their accessibility, in one place: the EPUB's package metadata
 * (render-epub.server.ts) and the book page's schema.org JSON-LD state the same facts. The claims hold because
 * CI checks every book's EPUB, sample and stamped copy with Ace by DAISY and epubcheck
 * (tests/integration/epub-accessibility.test.ts); a change here that the files do not back is caught there.
 */

/** EPUB Accessibility 1.1's conformance string, as it goes in `dcterms:conformsTo`. */
export const epubConformance = 'EPUB Accessibility 1.1 - WCAG 2.1 Level AA'
/** Who checks the claim (`a11y:certifiedBy`): the store itself, by automated checks, not a third party. */
export const accessibilityCertifier = 'CodeBook'

export type EpubAccessibility = {
  accessModes: string[]
  accessModeSufficient: string[]
  features: string[]
  hazards: string[]
  summary: string
}

/**
 * `images`: the EPUB carries an image (its cover); `pageList`: its navigation lists the PDF edition's pages.
 * Feature names are schema.org's (https://www.w3.org/2021/a11y-discov-vocab/latest/): `pageBreakMarkers`
 * replaced `printPageNumbers`, which is still given for reading systems that know only the older name.
 */
export function epubAccessibility({
  images,
  pageList,
}: {
  images: boolean
  pageList: boolean
}): EpubAccessibility {
  return {
    accessModes: images ? ['textual', 'visual'] : ['textual'],
    accessModeSufficient: ['textual'],
    features: [
      'structuralNavigation',
      'tableOfContents',
      'readingOrder',
      'displayTransformability',
      ...(images ? ['alternativeText'] : []),
      ...(pageList ? ['pageNavigation', 'pageBreakMarkers', 'printPageNumbers'] : []),
    ],
    hazards: ['none'],
    summary: [`This EPUB meets ${epubConformance}.`, ...describe({ images, pageList })].join(' '),
  }
}

/**
 * The same facts for the book page's schema.org `Book` (JSON-LD): they describe the EPUB edition, which is the
 * one the claims are checked for; the PDF is untagged and the summary says so. The store's EPUBs always carry
 * the book's cover and the PDF's page list.
 */
export function bookAccessibilityJsonLd() {
  const facts = epubAccessibility({ images: true, pageList: true })
  return {
    accessMode: facts.accessModes,
    accessModeSufficient: {
      '@type': 'ItemList',
      itemListElement: facts.accessModeSufficient,
      description: facts.accessModeSufficient.join(', '),
    },
    accessibilityFeature: facts.features,
    accessibilityHazard: facts.hazards,
    accessibilitySummary: [
      `The EPUB edition meets ${epubConformance}.`,
      ...describe({ images: true, pageList: true }),
      'The PDF edition is not tagged and makes no accessibility claim.',
    ].join(' '),
  } satisfies Partial<Exclude<Book, string>>
}

function describe({ images, pageList }: { images: boolean; pageList: boolean }): string[] {
  return [
    'Chapters and sections are marked up as headings and listed in the table of contents;',
    'the reading order follows the text; code listings are real text;',
    images ? 'every image has a text alternative;' : 'there are no images;',
    pageList ? "page breaks and a page list match the PDF edition's pages;" : '',
    'text can be resized and restyled by the reading system.',
    'Checked with Ace by DAISY and EPUBCheck for every edition.',
  ].filter(Boolean)
}
