import { PDFDocument, PDFHexString, type PDFImage, PDFName, type PDFPage, type PDFRef } from 'pdf-lib'
import type { ManuscriptImage } from './manuscript-image.ts'
import {
  type Block,
  type BookInfo,
  chapterLabel,
  chapterPrefix,
  inlineSpans,
  type Manuscript,
  plainText,
} from './manuscript.ts'
import {
  embedFonts,
  grey,
  margin,
  pageNumberBaseline,
  pageSize,
  PdfWriter,
  type Line,
  type Piece,
  textWidth,
} from './pdf-layout.server.ts'
import { countInk, type PageStart, type PrintPage } from './print-pages.ts'

/** Every edition carries the same dates, so the same manuscript always gives the same bytes (and cache keys). */
export const editionDate = new Date('2025-01-01T00:00:00Z')

const body = { size: 10.5, leading: 15, gap: 7 }
const code = { size: 8, leading: 10.5, padding: 8, background: [0.94, 0.94, 0.94] as const }
const heading = { size: 12.5, leading: 17, before: 12, after: 5 }
const bullet = { indent: 16, gap: 3 }
/** Figures: 96 pixels to the inch at most (never enlarged), then shrunk to the text's width or the page. */
const figure = { pointsPerPixel: 0.75, captionSize: 9, captionLeading: 12, captionGap: 6, gap: 12 }

type TocEntry = { title: string; level: 1 | 2; page: PDFPage }
type Cursor = { at: PageStart }
/** Told where in the block the next line comes from, before the line may start a new page. */
type MarkPosition = (at?: { item: number; chars: number } | { line: number }) => void

/** Renders the book (or, with `sampleOnly`, its free sample: title page, chapter 1 and a closing page) as a PDF. */
export async function renderBookPdf(
  book: BookInfo,
  manuscript: Manuscript,
  options: { sampleOnly?: boolean } = {},
): Promise<Uint8Array> {
  const { doc } = await layOutBookPdf(book, manuscript, options)
  return doc.save()
}

/** Where each page of the PDF (or its sample) starts: the page list the EPUB carries (print-pages.ts). */
export async function paginateBookPdf(
  book: BookInfo,
  manuscript: Manuscript,
  options: { sampleOnly?: boolean } = {},
): Promise<PrintPage[]> {
  return (await layOutBookPdf(book, manuscript, options)).pages
}

async function layOutBookPdf(
  book: BookInfo,
  manuscript: Manuscript,
  { sampleOnly = false }: { sampleOnly?: boolean },
): Promise<{ doc: PDFDocument; pages: PrintPage[] }> {
  const doc = await PDFDocument.create({ updateMetadata: false })
  const writer = new PdfWriter(doc, await embedFonts(doc))
  // What the next page would start with, kept current as the layout goes.
  const starts = new Map<PDFPage, PageStart>()
  const cursor: Cursor = { at: { part: 'title' } }
  writer.onNewPage = (page) => starts.set(page, cursor.at)

  drawTitlePage(writer, book, sampleOnly)
  const chapters = sampleOnly ? manuscript.chapters.slice(0, 1) : manuscript.chapters
  const images = new Map<ManuscriptImage, PDFImage>()
  for (const block of chapters.flatMap((chapter) => chapter.blocks)) {
    if (block.type !== 'image' || images.has(block.image)) continue
    const { mediaType, bytes } = block.image
    images.set(block.image, mediaType === 'image/png' ? await doc.embedPng(bytes) : await doc.embedJpg(bytes))
  }
  const toc: TocEntry[] = []
  chapters.forEach((chapter, index) => {
    cursor.at = { part: 'chapter', chapter: index, block: -1 }
    writer.newPage()
    writer.y -= 36
    toc.push({ title: chapterLabel(index, chapter), level: 1, page: writer.page })
    const title = [{ text: chapterPrefix(index), font: 'bold' } as const, ...pieces(chapter.title, 'bold')]
    for (const line of writer.wrap(title, 20, textWidth)) {
      writer.drawLine(line, { x: margin.left, y: writer.y - 20, size: 20 })
      writer.y -= 26
    }
    writer.y -= 18
    chapter.blocks.forEach((block, blockIndex) =>
      drawBlock(writer, block, { toc, images }, (at) => {
        cursor.at = { part: 'chapter', chapter: index, block: blockIndex, ...(at ? { at } : {}) }
      }),
    )
  })

  if (sampleOnly) {
    cursor.at = { part: 'closing' }
    drawClosingPage(writer)
  } else {
    drawContents(writer, toc, starts)
  }

  // The title page carries no number; every other page is numbered by its place in the file.
  doc.getPages().forEach((page, index) => {
    if (index === 0) return
    const label = String(index + 1)
    writer.page = page
    const x = (pageSize.width - writer.width(label, 'sans', 9)) / 2
    writer.text(label, 'sans', { x, y: pageNumberBaseline, size: 9, color: grey })
  })
  if (!sampleOnly) addOutline(doc, toc)

  doc.setTitle(sampleOnly ? `${book.title} (free sample)` : book.title, { showInWindowTitleBar: true })
  doc.setAuthor(book.author)
  doc.setProducer('CodeBook')
  doc.setCreator('CodeBook')
  doc.setLanguage('en')
  doc.setCreationDate(editionDate)
  doc.setModificationDate(editionDate)
  const pages = doc.getPages().map((page, index) => ({ number: index + 1, start: starts.get(page)! }))
  return { doc, pages }
}

function drawTitlePage(writer: PdfWriter, book: BookInfo, sampleOnly: boolean) {
  writer.newPage()
  const centered = (text: string, font: Parameters<PdfWriter['width']>[1], size: number, leading: number) => {
    for (const line of writer.wrap([{ text, font }], size, textWidth)) {
      writer.drawLine(line, { x: (pageSize.width - line.width) / 2, y: writer.y - size, size })
      writer.y -= leading
    }
  }
  writer.y = pageSize.height * 0.68
  centered(book.title, 'bold', 26, 32)
  writer.y -= 18
  centered(book.author, 'italic', 15, 20)
  writer.y = 120
  centered('CodeBook edition', 'sans', 10, 14)
  if (sampleOnly) centered('Free sample', 'sans', 10, 14)
}

function drawClosingPage(writer: PdfWriter) {
  writer.newPage()
  writer.y = pageSize.height * 0.58
  const text = 'End of the free sample — the full book is available at CodeBook.'
  for (const line of writer.wrap([{ text, font: 'italic' }], 14, textWidth * 0.8)) {
    writer.drawLine(line, { x: (pageSize.width - line.width) / 2, y: writer.y - 14, size: 14 })
    writer.y -= 20
  }
}

/** The characters of a wrapped line, spaces not counted (print-pages.ts). */
function lineInk(line: Line): number {
  return line.words.reduce(
    (sum, word) => sum + word.reduce((inner, piece) => inner + countInk(piece.text), 0),
    0,
  )
}

function pieces(text: string, font: 'body' | 'bold' = 'body'): Piece[] {
  return inlineSpans(text).map((span) => ({ text: span.text, font: span.code ? 'mono' : font }))
}

function drawBlock(
  writer: PdfWriter,
  block: Block,
  { toc, images }: { toc: TocEntry[]; images: Map<ManuscriptImage, PDFImage> },
  mark: MarkPosition,
) {
  mark()
  switch (block.type) {
    case 'paragraph': {
      const lines = writer.wrap(pieces(block.text), body.size, textWidth)
      let chars = 0
      lines.forEach((line, index) => {
        mark({ item: 0, chars })
        chars += lineInk(line)
        writer.ensure(body.leading)
        const last = index === lines.length - 1
        writer.drawLine(line, {
          x: margin.left,
          y: writer.y - body.size,
          size: body.size,
          justifyTo: last ? undefined : textWidth,
        })
        writer.y -= body.leading
      })
      writer.y -= body.gap
      return
    }
    case 'heading': {
      const lines = writer.wrap(pieces(block.text, 'bold'), heading.size, textWidth)
      // Keep the heading with at least two lines of what follows it.
      writer.ensure(heading.before + lines.length * heading.leading + heading.after + 2 * body.leading)
      if (writer.y < pageSize.height - margin.top) writer.y -= heading.before
      toc.push({ title: plainText(block.text), level: 2, page: writer.page })
      for (const line of lines) {
        writer.drawLine(line, { x: margin.left, y: writer.y - heading.size, size: heading.size })
        writer.y -= heading.leading
      }
      writer.y -= heading.after
      return
    }
    case 'list': {
      block.items.forEach((item, itemIndex) => {
        const lines = writer.wrap(pieces(item), body.size, textWidth - bullet.indent)
        let chars = 0
        lines.forEach((line, index) => {
          mark({ item: itemIndex, chars })
          chars += lineInk(line)
          writer.ensure(body.leading)
          const y = writer.y - body.size
          if (index === 0) writer.text('•', 'body', { x: margin.left + 4, y, size: body.size })
          writer.drawLine(line, { x: margin.left + bullet.indent, y, size: body.size })
          writer.y -= body.leading
        })
        writer.y -= bullet.gap
      })
      writer.y -= body.gap - bullet.gap
      return
    }
    case 'code': {
      // One grey box per page the block spans, each holding whole lines.
      let remaining = block.lines
      while (remaining.length > 0) {
        const room = Math.floor((writer.y - margin.bottom - 2 * code.padding) / code.leading)
        if (room < Math.min(3, remaining.length)) {
          mark({ line: block.lines.length - remaining.length })
          writer.newPage()
          continue
        }
        const chunk = remaining.slice(0, room)
        remaining = remaining.slice(room)
        const height = chunk.length * code.leading + 2 * code.padding
        writer.rect(margin.left, writer.y - height, textWidth, height, code.background)
        chunk.forEach((line, index) => {
          if (line === '') return
          const y = writer.y - code.padding - index * code.leading - code.size
          writer.text(line, 'mono', { x: margin.left + code.padding, y, size: code.size })
        })
        writer.y -= height + body.gap
      }
      return
    }
    case 'image': {
      // The picture, centred, with its caption under it, kept together on one page.
      const captionLines = block.caption
        ? writer.wrap([{ text: block.caption, font: 'italic' }], figure.captionSize, textWidth)
        : []
      const captionHeight =
        captionLines.length > 0 ? figure.captionGap + captionLines.length * figure.captionLeading : 0
      const { width: pixelsWide, height: pixelsHigh } = block.image
      const scale = Math.min(
        figure.pointsPerPixel,
        textWidth / pixelsWide,
        (pageSize.height - margin.top - margin.bottom - captionHeight) / pixelsHigh,
      )
      const width = pixelsWide * scale
      const height = pixelsHigh * scale
      writer.ensure(height + captionHeight)
      writer.page.drawImage(images.get(block.image)!, {
        x: margin.left + (textWidth - width) / 2,
        y: writer.y - height,
        width,
        height,
      })
      writer.y -= height
      if (captionLines.length > 0) writer.y -= figure.captionGap
      for (const line of captionLines) {
        const x = margin.left + (textWidth - line.width) / 2
        writer.drawLine(line, { x, y: writer.y - figure.captionSize, size: figure.captionSize })
        writer.y -= figure.captionLeading
      }
      writer.y -= figure.gap
      return
    }
  }
}

/** The contents pages go right after the title page, once every chapter's page is known. */
function drawContents(writer: PdfWriter, toc: TocEntry[], starts: Map<PDFPage, PageStart>) {
  const doc = writer.doc
  const pageOf = (entry: TocEntry) => writer.pages.indexOf(entry.page)
  const rows = toc.map((entry) => ({
    entry,
    size: entry.level === 1 ? 11.5 : 10,
    indent: entry.level === 1 ? 0 : 16,
    font: entry.level === 1 ? ('body' as const) : ('italic' as const),
  }))
  const numberWidth = 30
  const leading = (size: number) => size * 1.55
  // Entries never need more than a page or two; count them before numbering anything.
  const perPage = Math.floor((pageSize.height - margin.top - margin.bottom - 50) / leading(11.5))
  const contentsPages = Math.max(1, Math.ceil(rows.length / perPage))
  const contents: PDFPage[] = []
  for (let index = 0; index < contentsPages; index++) {
    const page = doc.insertPage(1 + index, [pageSize.width, pageSize.height])
    contents.push(page)
    starts.set(page, { part: 'contents', row: index * perPage })
  }
  writer.pages.splice(1, 0, ...contents)

  rows.forEach((row, index) => {
    if (index % perPage === 0) {
      writer.page = contents[index / perPage]!
      writer.y = pageSize.height - margin.top
      if (index === 0) {
        writer.text('Contents', 'bold', { x: margin.left, y: writer.y - 20, size: 20 })
        writer.y -= 50
      }
    }
    const label = String(pageOf(row.entry) + 1)
    const maxWidth = textWidth - row.indent - numberWidth
    const [line] = writer.wrap([{ text: row.entry.title, font: row.font }], row.size, maxWidth)
    const y = writer.y - row.size
    const x = margin.left + row.indent
    if (line) {
      const title = line.words.map((word) => word.map((piece) => piece.text).join('')).join(' ')
      const fitted = writer.width(row.entry.title, row.font, row.size) <= maxWidth ? title : `${title} …`
      writer.text(fitted, row.font, { x, y, size: row.size })
      const end = x + writer.width(fitted, row.font, row.size)
      const dotWidth = writer.width('. ', 'body', row.size)
      const numberX = margin.left + textWidth - writer.width(label, 'body', row.size)
      const dots = Math.floor((numberX - end - 12) / dotWidth)
      if (dots > 0) {
        const leader = '. '.repeat(dots).trimEnd()
        writer.text(leader, 'body', {
          x: numberX - 6 - writer.width(leader, 'body', row.size),
          y,
          size: row.size,
          color: grey,
        })
      }
      writer.text(label, 'body', { x: numberX, y, size: row.size })
    }
    writer.y -= leading(row.size)
  })
}

/** PDF bookmarks for the chapters and their sections, so readers can jump through the book from the sidebar. */
function addOutline(doc: PDFDocument, toc: TocEntry[]) {
  const context = doc.context
  const rootRef = context.nextRef()
  type Item = { ref: PDFRef; entry: TocEntry; children: Item[] }
  const chapters: Item[] = []
  for (const entry of toc) {
    const item: Item = { ref: context.nextRef(), entry, children: [] }
    if (entry.level === 1 || chapters.length === 0) chapters.push(item)
    else chapters.at(-1)!.children.push(item)
  }
  const writeLevel = (items: Item[], parent: PDFRef) => {
    items.forEach((item, index) => {
      const dict = context.obj({
        Title: PDFHexString.fromText(item.entry.title),
        Parent: parent,
        Dest: [item.entry.page.ref, 'Fit'],
      })
      const previous = items[index - 1]
      const next = items[index + 1]
      if (previous) dict.set(PDFName.of('Prev'), previous.ref)
      if (next) dict.set(PDFName.of('Next'), next.ref)
      if (item.children.length > 0) {
        dict.set(PDFName.of('First'), item.children[0]!.ref)
        dict.set(PDFName.of('Last'), item.children.at(-1)!.ref)
        // A negative count shows a chapter's sections collapsed.
        dict.set(PDFName.of('Count'), context.obj(-item.children.length))
        writeLevel(item.children, item.ref)
      }
      context.assign(item.ref, dict)
    })
  }
  writeLevel(chapters, rootRef)
  const root = context.obj({ Type: 'Outlines', Count: chapters.length })
  if (chapters.length > 0) {
    root.set(PDFName.of('First'), chapters[0]!.ref)
    root.set(PDFName.of('Last'), chapters.at(-1)!.ref)
  }
  context.assign(rootRef, root)
  doc.catalog.set(PDFName.of('Outlines'), rootRef)
}
