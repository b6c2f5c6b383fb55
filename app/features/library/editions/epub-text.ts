import { type Block, inlineSpans } from './manuscript.ts'
import type { PageStart, PrintPage } from './print-pages.ts'

/**
 * A manuscript's blocks as EPUB XHTML, with the PDF edition's page breaks marked where its pages start: before a
 * block, inside a paragraph or list item at the character the page's first line starts with, or before a code
 * listing's line.
 */

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

/** The EPUB 3 page-break marker, with the DPUB-ARIA role Ace asks for and the number as its accessible name. */
export function pageBreakMarker(page: number): string {
  return `<span epub:type="pagebreak" role="doc-pagebreak" id="page-${page}" aria-label="${page}"></span>`
}

type InBlock = Extract<PageStart, { part: 'chapter' }>['at']
type Mark = { page: number; at: InBlock }

/** The pages that start in a chapter, by block (-1: its heading). */
export function chapterPageStarts(pages: PrintPage[], chapter: number): Map<number, Mark[]> {
  const byBlock = new Map<number, Mark[]>()
  for (const { number, start } of pages) {
    if (start.part !== 'chapter' || start.chapter !== chapter) continue
    const marks = byBlock.get(start.block) ?? []
    marks.push({ page: number, at: start.at })
    byBlock.set(start.block, marks)
  }
  return byBlock
}

/** Inline text (prose and `code`) with markers placed before the character `chars` non-space characters in. */
export function inline(text: string, marks: { chars: number; page: number }[] = []): string {
  const pending = [...marks].sort((a, b) => a.chars - b.chars)
  let next = 0
  let ink = 0
  const html = inlineSpans(text)
    .map((span) => {
      let chunk = ''
      for (const char of span.text) {
        if (char !== ' ') {
          while (next < pending.length && pending[next]!.chars <= ink)
            chunk += pageBreakMarker(pending[next++]!.page)
          ink++
        }
        chunk += escapeXml(char)
      }
      return span.code ? `<code>${chunk}</code>` : chunk
    })
    .join('')
  return (
    html +
    pending
      .slice(next)
      .map((mark) => pageBreakMarker(mark.page))
      .join('')
  )
}

/**
 * A block as XHTML. `names.id`: a heading's or figure's id (a heading's is its link from the contents);
 * `names.imageFile`: where an image block's picture is in the EPUB.
 */
export function renderBlock(
  block: Block,
  names: { id?: string; imageFile?: string },
  marks: Mark[] = [],
): string {
  const before = marks
    .filter((mark) => mark.at === undefined)
    .map((mark) => `${pageBreakMarker(mark.page)}\n`)
    .join('')
  const inText = (item: number) =>
    marks.flatMap(({ page, at }) =>
      at && 'item' in at && at.item === item ? [{ page, chars: at.chars }] : [],
    )
  switch (block.type) {
    case 'paragraph':
      return `${before}<p>${inline(block.text, inText(0))}</p>`
    case 'heading':
      return `${before}<h2 id="${names.id}">${inline(block.text)}</h2>`
    case 'list': {
      const items = block.items.map((item, index) => `  <li>${inline(item, inText(index))}</li>`)
      return `${before}<ul>\n${items.join('\n')}\n</ul>`
    }
    case 'code': {
      const lang = block.lang ? ` class="language-${escapeXml(block.lang)}"` : ''
      const lines = block.lines.map((line, index) => {
        const markers = marks
          .filter(({ at }) => at && 'line' in at && at.line === index)
          .map((mark) => pageBreakMarker(mark.page))
        return markers.join('') + escapeXml(line)
      })
      return `${before}<pre><code${lang}>${lines.join('\n')}</code></pre>`
    }
    case 'image': {
      const { width, height } = block.image
      const caption = block.caption ? `\n  <figcaption>${escapeXml(block.caption)}</figcaption>` : ''
      return `${before}<figure id="${names.id}">\n  <img src="${names.imageFile}" alt="${escapeXml(block.alt)}" width="${width}" height="${height}"/>${caption}\n</figure>`
    }
  }
}

/** The navigation document's list of the PDF edition's pages, each linked to its marker. */
export function pageListNav(pages: { number: number; file: string }[]): string {
  const items = pages.map(({ number, file }) => `    <li><a href="${file}#page-${number}">${number}</a></li>`)
  return `<nav epub:type="page-list" id="page-list" role="doc-pagelist" hidden="hidden">
  <h2>Pages</h2>
  <ol>
${items.join('\n')}
  </ol>
</nav>`
}
