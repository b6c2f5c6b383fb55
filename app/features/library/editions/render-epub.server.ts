import { createHash } from 'node:crypto'
import JSZip from 'jszip'
import {
  type Block,
  type BookInfo,
  chapterLabel,
  chapterPrefix,
  type Manuscript,
  plainText,
} from './manuscript.ts'
import { accessibilityCertifier, epubAccessibility, epubConformance } from './accessibility.ts'
import {
  chapterPageStarts,
  escapeXml,
  inline,
  pageBreakMarker,
  pageListNav,
  renderBlock,
} from './epub-text.ts'
import type { PageStart } from './print-pages.ts'
import { editionDate, paginateBookPdf } from './render-pdf.server.ts'

export { escapeXml } from './epub-text.ts'

/**
 * An EPUB 3 edition: OEBPS/content.opf, a navigation document, a title page, one XHTML file per chapter and a
 * stylesheet. Zip entries carry a fixed date, so the same manuscript always gives the same bytes.
 */

export const opfPath = 'OEBPS/content.opf'
export const navPath = 'OEBPS/nav.xhtml'
/** Declared on <package> so stamped copies can add `codebook:` metadata (see stamp.server.ts). */
export const codebookVocabulary = 'https://codebook.localhost/vocab/epub#'

/** A fixed namespace for name-based (v5) UUIDs of our books. */
const uuidNamespace = 'b2f1c0de-5e1f-4d7a-9c3e-0c0deb00c0de'

const closingFile = 'end-of-sample.xhtml'

/** The first entry of the contents; a stamped copy lists its 'Prepared for' page right after it. */
export const titlePageNavItem = '<li><a href="title.xhtml">Title page</a></li>'

export type EpubEntry = { path: string; data: string | Uint8Array }

/** The book's cover as the store shows it: the seed's SVG or an upload's JPEG. */
export type EpubCover = { bytes: Uint8Array; mediaType: 'image/svg+xml' | 'image/jpeg' }

/**
 * With a cover, the EPUB carries it as its `cover-image` (what reading apps show on their shelf) and opens on
 * a cover page before the title page. With `sampleOnly`, the free sample: title page, chapter 1 and a closing
 * page, as the sample PDF has them. Either way the PDF edition's page breaks are marked in the text and listed
 * in the navigation document (EPUB Accessibility 1.1's page navigation).
 */
export async function renderBookEpub(
  book: BookInfo,
  manuscript: Manuscript,
  { cover, sampleOnly = false }: { cover?: EpubCover; sampleOnly?: boolean } = {},
): Promise<Uint8Array> {
  const pages = await paginateBookPdf(book, manuscript, { sampleOnly })
  const coverFile = cover ? `cover.${cover.mediaType === 'image/svg+xml' ? 'svg' : 'jpg'}` : null
  const title = sampleOnly ? `${book.title} (free sample)` : book.title
  const chapters = (sampleOnly ? manuscript.chapters.slice(0, 1) : manuscript.chapters).map(
    (chapter, index) => ({
      chapter,
      index,
      file: `chapter-${index + 1}.xhtml`,
      // Section ids are numbered in the order they appear in the chapter.
      sections: chapter.blocks
        .filter((block) => block.type === 'heading')
        .map((block, sectionIndex) => ({ id: `section-${sectionIndex + 1}`, title: block.text })),
    }),
  )
  // Figures, numbered by chapter, in the order they appear.
  const figures = chapters.flatMap(({ chapter, index }) =>
    chapter.blocks
      .filter((block) => block.type === 'image')
      .map((block, figure) => ({
        block,
        id: `figure-${index + 1}-${figure + 1}`,
        file: `images/figure-${index + 1}-${figure + 1}.${block.image.mediaType === 'image/png' ? 'png' : 'jpg'}`,
      })),
  )
  const figureOf = new Map<Block, { id: string; file: string }>(
    figures.map((figure) => [figure.block, figure]),
  )
  const pageFile = (start: PageStart): string => {
    switch (start.part) {
      case 'title':
        return 'title.xhtml'
      case 'contents':
        return 'nav.xhtml'
      case 'chapter':
        return `chapter-${start.chapter + 1}.xhtml`
      case 'closing':
        return closingFile
    }
  }
  const markersAt = (part: 'title' | 'closing') =>
    pages
      .filter((page) => page.start.part === part)
      .map((page) => `${pageBreakMarker(page.number)}\n`)
      .join('')
  const accessibility = epubAccessibility({
    images: cover !== undefined || figures.length > 0,
    pageList: pages.length > 0,
  })

  const manifest = [
    ...(cover && coverFile
      ? [
          `<item id="cover-image" href="${coverFile}" media-type="${cover.mediaType}" properties="cover-image"/>`,
          `<item id="cover" href="cover.xhtml" media-type="application/xhtml+xml"/>`,
        ]
      : []),
    `<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>`,
    ...figures.map(
      ({ id, file, block }) => `<item id="${id}" href="${file}" media-type="${block.image.mediaType}"/>`,
    ),
    `<item id="style" href="style.css" media-type="text/css"/>`,
    `<item id="title-page" href="title.xhtml" media-type="application/xhtml+xml"/>`,
    ...chapters.map(
      ({ file, index }) =>
        `<item id="chapter-${index + 1}" href="${file}" media-type="application/xhtml+xml"/>`,
    ),
    ...(sampleOnly
      ? [`<item id="end-of-sample" href="${closingFile}" media-type="application/xhtml+xml"/>`]
      : []),
  ]
  const spine = [
    ...(cover ? [`<itemref idref="cover"/>`] : []),
    `<itemref idref="title-page"/>`,
    `<itemref idref="nav"/>`,
    ...chapters.map(({ index }) => `<itemref idref="chapter-${index + 1}"/>`),
    ...(sampleOnly ? [`<itemref idref="end-of-sample"/>`] : []),
  ]
  const metadata = [
    `<dc:identifier id="book-id">urn:uuid:${uuidFromName(sampleOnly ? `${book.slug}/sample` : book.slug)}</dc:identifier>`,
    `<dc:title>${escapeXml(title)}</dc:title>`,
    `<dc:creator id="author">${escapeXml(book.author)}</dc:creator>`,
    `<dc:language>en</dc:language>`,
    `<dc:publisher>CodeBook</dc:publisher>`,
    // The page list follows the PDF edition: named as the source of the pagination (EPUB Accessibility 1.1).
    `<dc:source id="pagination-source">${escapeXml(`${book.title}, CodeBook PDF edition (${book.slug}${sampleOnly ? '-sample' : ''}.pdf)`)}</dc:source>`,
    `<meta refines="#pagination-source" property="source-of">pagination</meta>`,
    `<meta property="dcterms:modified">${epubDate(editionDate)}</meta>`,
    ...accessibility.accessModes.map((mode) => `<meta property="schema:accessMode">${mode}</meta>`),
    ...accessibility.accessModeSufficient.map(
      (modes) => `<meta property="schema:accessModeSufficient">${modes}</meta>`,
    ),
    ...accessibility.features.map(
      (feature) => `<meta property="schema:accessibilityFeature">${feature}</meta>`,
    ),
    ...accessibility.hazards.map((hazard) => `<meta property="schema:accessibilityHazard">${hazard}</meta>`),
    `<meta property="schema:accessibilitySummary">${escapeXml(accessibility.summary)}</meta>`,
    `<meta property="dcterms:conformsTo" id="conformance">${epubConformance}</meta>`,
    `<meta property="a11y:certifiedBy" refines="#conformance">${accessibilityCertifier}</meta>`,
    // EPUB 2 readers (and Kindle's converter) find the cover by this.
    ...(cover ? ['<meta name="cover" content="cover-image"/>'] : []),
  ]
  const opf = `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" xml:lang="en" prefix="codebook: ${codebookVocabulary}">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    ${metadata.join('\n    ')}
  </metadata>
  <manifest>
    ${manifest.join('\n    ')}
  </manifest>
  <spine>
    ${spine.join('\n    ')}
  </spine>
</package>
`

  // The PDF's contents list the same chapters and sections in the same order: a contents page that starts at
  // row N starts at the Nth of them here.
  const contentsPages = pages.filter((page) => page.start.part === 'contents')
  let row = 0
  const tocLink = (href: string, label: string) => {
    const markers = contentsPages
      .filter(({ start }) => start.part === 'contents' && start.row > 0 && start.row === row)
      .map((page) => pageBreakMarker(page.number))
    row++
    return `<a href="${href}">${markers.join('')}${escapeXml(label)}</a>`
  }
  const tocItems = chapters.map(({ chapter, index, file, sections }) => {
    const link = `    <li>${tocLink(file, chapterLabel(index, chapter))}`
    if (sections.length === 0) return `${link}</li>`
    const items = sections.map(
      (section) => `        <li>${tocLink(`${file}#${section.id}`, plainText(section.title))}</li>`,
    )
    return `${link}\n      <ol>\n${items.join('\n')}\n      </ol>\n    </li>`
  })
  const firstContentsPage = contentsPages
    .filter(({ start }) => start.part === 'contents' && start.row === 0)
    .map((page) => `${pageBreakMarker(page.number)}\n`)
    .join('')
  const nav = xhtmlDocument(
    'Contents',
    `${firstContentsPage}<nav epub:type="toc" id="toc" role="doc-toc">
  <h1>Contents</h1>
  <ol>
    ${titlePageNavItem}
${tocItems.join('\n')}${sampleOnly ? `\n    <li><a href="${closingFile}">End of the sample</a></li>` : ''}
  </ol>
</nav>
<nav epub:type="landmarks" id="landmarks" hidden="hidden">
  <h2>Landmarks</h2>
  <ol>${cover ? '\n    <li><a epub:type="cover" href="cover.xhtml">Cover</a></li>' : ''}
    <li><a epub:type="titlepage" href="title.xhtml">Title page</a></li>
    <li><a epub:type="toc" href="nav.xhtml#toc">Contents</a></li>
    <li><a epub:type="bodymatter" href="${chapters[0]?.file ?? 'title.xhtml'}">Start reading</a></li>
  </ol>
</nav>
${pageListNav(pages.map((page) => ({ number: page.number, file: pageFile(page.start) })))}`,
  )

  const titlePage = xhtmlDocument(
    title,
    `${markersAt('title')}<section epub:type="titlepage" class="title-page">
  <h1 class="book-title">${escapeXml(book.title)}</h1>
  <p class="book-author">${escapeXml(book.author)}</p>
  <p class="edition">CodeBook edition${sampleOnly ? '</p>\n  <p class="edition">Free sample' : ''}</p>
</section>`,
  )

  const coverEntries: EpubEntry[] =
    cover && coverFile
      ? [
          { path: `OEBPS/${coverFile}`, data: cover.bytes },
          {
            path: 'OEBPS/cover.xhtml',
            data: xhtmlDocument(
              'Cover',
              `<section class="cover">\n  <img epub:type="cover" role="doc-cover" src="${coverFile}" alt="${escapeXml(`Cover of ${book.title}`)}"/>\n</section>`,
            ),
          },
        ]
      : []

  return packEpub([
    { path: 'META-INF/container.xml', data: containerXml },
    { path: opfPath, data: opf },
    ...coverEntries,
    ...figures.map(({ file, block }) => ({ path: `OEBPS/${file}`, data: block.image.bytes })),
    { path: navPath, data: nav },
    { path: 'OEBPS/style.css', data: stylesheet },
    { path: 'OEBPS/title.xhtml', data: titlePage },
    ...chapters.map(({ chapter, index, file, sections }) => {
      const starts = chapterPageStarts(pages, index)
      let section = 0
      const blocks = chapter.blocks.map((block, blockIndex) =>
        renderBlock(
          block,
          block.type === 'heading'
            ? { id: sections[section++]!.id }
            : { id: figureOf.get(block)?.id, imageFile: figureOf.get(block)?.file },
          starts.get(blockIndex),
        ),
      )
      const headingMarkers = (starts.get(-1) ?? []).map((mark) => `${pageBreakMarker(mark.page)}\n`).join('')
      const heading = `${escapeXml(chapterPrefix(index))}${inline(chapter.title)}`
      return {
        path: `OEBPS/${file}`,
        data: xhtmlDocument(
          chapterLabel(index, chapter),
          `<section epub:type="chapter" role="doc-chapter" id="chapter-${index + 1}">\n${headingMarkers}<h1>${heading}</h1>\n${blocks.join('\n')}\n</section>`,
        ),
      }
    }),
    ...(sampleOnly
      ? [
          {
            path: `OEBPS/${closingFile}`,
            data: xhtmlDocument(
              'End of the sample',
              `${markersAt('closing')}<section class="end-of-sample" aria-label="End of the sample">
  <p>End of the free sample — the full book is available at CodeBook.</p>
</section>`,
            ),
          },
        ]
      : []),
  ])
}

/** Zips an EPUB: `mimetype` first and stored, as the OCF container format requires; fixed dates throughout. */
export async function packEpub(entries: EpubEntry[]): Promise<Uint8Array> {
  const zip = new JSZip()
  const options = { date: editionDate, createFolders: false } as const
  zip.file('mimetype', 'application/epub+zip', { ...options, compression: 'STORE' })
  for (const entry of entries) {
    if (entry.path === 'mimetype') continue
    zip.file(entry.path, entry.data, { ...options, compression: 'DEFLATE', compressionOptions: { level: 9 } })
  }
  return zip.generateAsync({ type: 'uint8array' })
}

export function xhtmlDocument(title: string, body: string): string {
  const epubNamespace = body.includes('epub:') ? ' xmlns:epub="http://www.idpf.org/2007/ops"' : ''
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml"${epubNamespace} xml:lang="en" lang="en">
<head>
  <title>${escapeXml(plainText(title))}</title>
  <link rel="stylesheet" type="text/css" href="style.css"/>
</head>
<body>
${body}
</body>
</html>
`
}

/** `dcterms:modified` wants CCYY-MM-DDThh:mm:ssZ, without milliseconds. */
export function epubDate(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** A name-based (version 5) UUID: the same slug always gives the same identifier. */
export function uuidFromName(name: string): string {
  const namespace = Buffer.from(uuidNamespace.replaceAll('-', ''), 'hex')
  const bytes = createHash('sha1').update(namespace).update(name, 'utf8').digest().subarray(0, 16)
  bytes[6] = (bytes[6]! & 0x0f) | 0x50
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

const containerXml = `<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="${opfPath}" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>
`

const stylesheet = `body { font-family: Georgia, "Times New Roman", serif; line-height: 1.5; margin: 0 5%; }
h1, h2 { font-family: "Helvetica Neue", Helvetica, Arial, sans-serif; line-height: 1.25; }
h1 { font-size: 1.6em; margin: 1.5em 0 1em; }
h2 { font-size: 1.2em; margin: 1.6em 0 0.5em; page-break-after: avoid; break-after: avoid; }
p { margin: 0 0 0.8em; text-align: justify; }
code { font-family: "Courier New", Courier, monospace; font-size: 0.9em; }
pre { background: #f0f0f0; padding: 0.75em 1em; font-size: 0.8em; line-height: 1.35; white-space: pre-wrap; }
pre code { font-size: 1em; }
ul { margin: 0 0 0.8em; padding-left: 1.4em; }
li { margin: 0.2em 0; }
.title-page { text-align: center; margin-top: 30%; }
.book-title { font-size: 2em; }
.book-author { font-style: italic; font-size: 1.2em; text-align: center; }
.edition { margin-top: 4em; font-size: 0.9em; text-align: center; color: #555; }
.prepared-for { text-align: center; margin-top: 25%; }
.cover { margin: 0; padding: 0; text-align: center; height: 100%; }
.end-of-sample { text-align: center; margin-top: 30%; font-style: italic; }
.cover img { max-width: 100%; max-height: 100%; height: auto; }
figure { margin: 1.2em 0; text-align: center; page-break-inside: avoid; break-inside: avoid; }
figure img { max-width: 100%; height: auto; }
figcaption { font-size: 0.85em; font-style: italic; margin-top: 0.4em; text-align: center; }
.prepared-for p { text-align: center; }
`
