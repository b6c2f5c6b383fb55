import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import fontkit from '@pdf-lib/fontkit'
import {
  beginText,
  endText,
  lineTo,
  moveText,
  moveTo,
  PDFDocument,
  type PDFFont,
  PDFName,
  type PDFPage,
  popGraphicsState,
  pushGraphicsState,
  setFillingRgbColor,
  setFontAndSize,
  setLineWidth,
  setStrokingRgbColor,
  showText,
  stroke,
} from 'pdf-lib'
import { formatAmount, formatRate, REVERSE_CHARGE_NOTE, type InvoiceDocument } from './invoice-document.ts'
import { encodableText } from './pdf-text.ts'

/**
 * An invoice or credit note as an A4 PDF, rendered once when it is issued and stored with it (decision 037): the
 * seller, the title, number, date and order, the buyer, a table of the lines (title, net, VAT rate, VAT, gross)
 * that wraps long titles and flows onto further pages with its header repeated, the VAT by rate, the totals and
 * the notes (the reverse charge sentence among them). Each text is one string drawn with fixed font names, so
 * `pdftotext` reads it back whole. The font is DejaVu Sans Condensed (the `dejavu-fonts-ttf` package), embedded as a subset
 * of the characters used: every European script (Latin with all its diacritics, Greek, Cyrillic) prints as
 * written; a character it lacks (Chinese, say) becomes '?' (pdf-text.ts). The document's JSON is attached to the
 * PDF, so the file itself keeps every name exactly as written.
 */

const require = createRequire(import.meta.url)

/**
 * fontkit, parsing each font file once per process: pdf-lib asks it to parse the file for every document, and
 * that was most of an invoice's 75 ms (a parsed font only serves to make each document's subset from).
 */
const parsedFonts = new WeakMap<Uint8Array, ReturnType<typeof fontkit.create>>()
const parsedOnce: typeof fontkit = {
  ...fontkit,
  create(bytes, postscriptName) {
    if (postscriptName !== undefined) return fontkit.create(bytes, postscriptName)
    let font = parsedFonts.get(bytes)
    if (!font) parsedFonts.set(bytes, (font = fontkit.create(bytes)))
    return font
  },
}

/** The characters both faces can show (the same for every document). */
let encodable: ReadonlySet<number> | undefined

/** The fonts' files, read once per process (about 700 KB each; an invoice embeds only the glyphs it uses). */
let fontFiles: Promise<{ regular: Uint8Array; bold: Uint8Array }> | undefined
function readFonts() {
  fontFiles ??= (async () => {
    const file = (name: string) => readFile(require.resolve(`dejavu-fonts-ttf/ttf/${name}`))
    const [regular, bold] = await Promise.all([
      file('DejaVuSansCondensed.ttf'),
      file('DejaVuSansCondensed-Bold.ttf'),
    ])
    return { regular, bold }
  })()
  fontFiles.catch(() => (fontFiles = undefined))
  return fontFiles
}

const A4 = { width: 595.28, height: 841.89 }
const margin = { top: 56, right: 56, bottom: 64, left: 56 }
const right = A4.width - margin.right
type Color = readonly [number, number, number]
const grey: Color = [0.4, 0.4, 0.4]
const black: Color = [0.1, 0.1, 0.1]

/** The lines table: the description column wraps; each amount column is right-aligned on its edge. */
const columns = {
  description: margin.left,
  descriptionWidth: 220,
  net: 345,
  rate: 400,
  tax: 468,
  gross: right,
}
const body = 9
const leading = 12

type Style = { size?: number; bold?: boolean; color?: Color; align?: 'left' | 'right' }

class Sheet {
  readonly pages: PDFPage[] = []
  page!: PDFPage
  y = 0

  private constructor(
    readonly pdf: PDFDocument,
    private readonly fonts: { regular: PDFFont; bold: PDFFont },
    private readonly encodable: ReadonlySet<number>,
  ) {}

  static async create(pdf: PDFDocument) {
    const files = await readFonts()
    pdf.registerFontkit(parsedOnce)
    const regular = await pdf.embedFont(files.regular, { subset: true })
    const bold = await pdf.embedFont(files.bold, { subset: true })
    // What the bold face lacks of the regular's characters would show as blank boxes: only what both have.
    encodable ??= new Set(
      regular.getCharacterSet().filter(Set.prototype.has, new Set(bold.getCharacterSet())),
    )
    return new Sheet(pdf, { regular, bold }, encodable)
  }

  newPage(): void {
    this.page = this.pdf.addPage([A4.width, A4.height])
    this.pages.push(this.page)
    this.y = A4.height - margin.top
  }

  /** True when `height` more points fit above the bottom margin. */
  fits(height: number): boolean {
    return this.y - height >= margin.bottom
  }

  safe(text: string): string {
    return encodableText(text, this.encodable)
  }

  width(text: string, { size = body, bold = false }: Style = {}): number {
    return this.fonts[bold ? 'bold' : 'regular'].widthOfTextAtSize(this.safe(text), size)
  }

  /** One line of text at `x` (its right edge when right-aligned), on the baseline `y`. */
  text(text: string, x: number, y: number, style: Style = {}): void {
    const { size = body, bold = false, color = black, align = 'left' } = style
    const font = this.fonts[bold ? 'bold' : 'regular']
    const safe = this.safe(text)
    const left = align === 'right' ? x - font.widthOfTextAtSize(safe, size) : x
    const key = bold ? 'F-invoice-bold' : 'F-invoice'
    this.page.node.setFontDictionary(PDFName.of(key), font.ref)
    this.page.pushOperators(
      pushGraphicsState(),
      beginText(),
      setFillingRgbColor(...color),
      setFontAndSize(key, size),
      moveText(left, y),
      showText(font.encodeText(safe)),
      endText(),
      popGraphicsState(),
    )
  }

  rule(y: number, from = margin.left, to = right): void {
    this.page.pushOperators(
      pushGraphicsState(),
      setStrokingRgbColor(...grey),
      setLineWidth(0.5),
      moveTo(from, y),
      lineTo(to, y),
      stroke(),
      popGraphicsState(),
    )
  }

  /** Greedy line breaking by words; a word wider than the line is cut between characters. */
  wrap(text: string, maxWidth: number, style: Style = {}): string[] {
    const lines: string[] = []
    for (const paragraph of text.split('\n')) {
      let current = ''
      for (const word of paragraph.split(/\s+/).filter(Boolean)) {
        for (const piece of this.cut(word, maxWidth, style)) {
          const joined = current ? `${current} ${piece}` : piece
          if (current && this.width(joined, style) > maxWidth) {
            lines.push(current)
            current = piece
          } else current = joined
        }
      }
      if (current) lines.push(current)
    }
    return lines
  }

  private cut(word: string, maxWidth: number, style: Style): string[] {
    if (this.width(word, style) <= maxWidth) return [word]
    const pieces: string[] = []
    let piece = ''
    for (const char of word) {
      if (piece && this.width(piece + char, style) > maxWidth) {
        pieces.push(piece)
        piece = ''
      }
      piece += char
    }
    return piece ? [...pieces, piece] : pieces
  }
}

const titles = { invoice: 'Invoice', credit_note: 'Credit note' } as const
const nonEmptyLines = (text: string | null) =>
  (text ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)

export async function renderInvoicePdf(document: InvoiceDocument): Promise<Uint8Array> {
  const pdf = await PDFDocument.create()
  const sheet = await Sheet.create(pdf)
  const title = titles[document.kind]
  const money = (cents: number) => formatAmount(cents)
  const { seller, buyer, currency } = document
  sheet.newPage()

  // The seller, left; the title and the document's references, right.
  let left = sheet.y
  sheet.text(seller.legalName, margin.left, left, { size: 11, bold: true })
  left -= 14
  const sellerLines = [
    ...nonEmptyLines(seller.postalAddress),
    ...(seller.vatNumber ? [`VAT no. ${seller.vatNumber}`] : []),
    seller.email,
  ]
  for (const line of sellerLines.filter(Boolean)) {
    sheet.text(line, margin.left, left, { color: grey })
    left -= leading
  }
  let top = sheet.y - 8
  sheet.text(title, right, top, { size: 20, bold: true, align: 'right' })
  top -= 22
  const references: Array<[string, string]> = [
    ['Number', document.number],
    ['Date of issue', document.issueDate],
    ['Order', `#${document.orderNumber}`],
    ...(document.creditsInvoiceNumber
      ? [['Credits invoice', document.creditsInvoiceNumber] as [string, string]]
      : []),
  ]
  for (const [label, value] of references) {
    sheet.text(`${label}: ${value}`, right, top, { align: 'right' })
    top -= leading
  }
  sheet.y = Math.min(left, top) - 16

  // The buyer.
  sheet.text(document.kind === 'invoice' ? 'Bill to' : 'Credit to', margin.left, sheet.y, {
    bold: true,
    color: grey,
  })
  sheet.y -= leading + 2
  const buyerLines = [
    ...(buyer.name.trim() ? [buyer.name] : []),
    ...nonEmptyLines(buyer.address),
    `Country: ${buyer.country}`,
    ...(buyer.vatNumber ? [`VAT no. ${buyer.vatNumber}`] : []),
    buyer.email,
  ]
  for (const line of buyerLines.filter(Boolean)) {
    sheet.text(line, margin.left, sheet.y, { size: 10 })
    sheet.y -= leading + 1
  }
  sheet.y -= 14

  // The lines, flowing onto new pages as needed, the header repeated on each.
  const tableHeader = () => {
    const style = { bold: true, align: 'right' } as const
    sheet.text('Description', columns.description, sheet.y, { bold: true })
    sheet.text(`Net (${currency})`, columns.net, sheet.y, style)
    sheet.text('VAT rate', columns.rate, sheet.y, style)
    sheet.text(`VAT (${currency})`, columns.tax, sheet.y, style)
    sheet.text(`Gross (${currency})`, columns.gross, sheet.y, style)
    sheet.rule(sheet.y - 4)
    sheet.y -= leading + 6
  }
  const continuePage = () => {
    sheet.newPage()
    sheet.text(`${title} ${document.number} (continued)`, margin.left, sheet.y, { color: grey })
    sheet.y -= leading * 2
    tableHeader()
  }
  tableHeader()
  for (const line of document.lines) {
    const wrapped = sheet.wrap(line.title, columns.descriptionWidth)
    const height = Math.max(1, wrapped.length) * leading + 4
    if (!sheet.fits(height)) continuePage()
    const amounts = { align: 'right' } as const
    sheet.text(money(line.netCents), columns.net, sheet.y, amounts)
    sheet.text(formatRate(line.taxRateBp), columns.rate, sheet.y, amounts)
    sheet.text(money(line.taxCents), columns.tax, sheet.y, amounts)
    sheet.text(money(line.grossCents), columns.gross, sheet.y, amounts)
    for (const part of wrapped) {
      sheet.text(part, columns.description, sheet.y)
      sheet.y -= leading
    }
    sheet.y -= 4
  }
  sheet.rule(sheet.y + 8)

  // The VAT by rate and the totals stay together on one page.
  const summaryHeight = (document.taxByRate.length + 5) * leading + 16
  if (!sheet.fits(summaryHeight)) continuePage()
  sheet.y -= 6
  sheet.text('VAT by rate', columns.description, sheet.y, { bold: true })
  sheet.y -= leading
  for (const rate of document.taxByRate) {
    const amounts = { align: 'right' } as const
    sheet.text(`VAT ${formatRate(rate.rateBp)}`, columns.description, sheet.y)
    sheet.text(money(rate.netCents), columns.net, sheet.y, amounts)
    sheet.text(formatRate(rate.rateBp), columns.rate, sheet.y, amounts)
    sheet.text(money(rate.taxCents), columns.tax, sheet.y, amounts)
    sheet.text(money(rate.netCents + rate.taxCents), columns.gross, sheet.y, amounts)
    sheet.y -= leading
  }
  sheet.y -= 8
  const credit = document.kind === 'credit_note'
  const totals: Array<[string, number, boolean]> = [
    ['Total net', document.totals.netCents, false],
    ['Total VAT', document.totals.taxCents, false],
    [credit ? 'Total credited' : 'Total', document.totals.grossCents, true],
  ]
  for (const [label, cents, bold] of totals) {
    sheet.text(label, columns.tax, sheet.y, { bold, size: bold ? 11 : body, align: 'right' })
    sheet.text(`${money(cents)} ${currency}`, columns.gross, sheet.y, {
      bold,
      size: bold ? 11 : body,
      align: 'right',
    })
    sheet.y -= leading + 2
  }
  sheet.y -= 10

  // The notes: the reverse charge first when it applies, whatever the notes say.
  const notes = [
    ...(document.reverseCharge && !document.notes.includes(REVERSE_CHARGE_NOTE) ? [REVERSE_CHARGE_NOTE] : []),
    ...document.notes,
    document.pricesIncludeTax ? 'Prices include VAT.' : 'VAT is added to the net prices.',
  ]
  for (const note of notes) {
    for (const part of sheet.wrap(note, right - margin.left)) {
      if (!sheet.fits(leading)) sheet.newPage()
      sheet.text(part, margin.left, sheet.y)
      sheet.y -= leading
    }
    sheet.y -= 4
  }

  // Every page names the document and counts the pages.
  sheet.pages.forEach((page, index) => {
    sheet.page = page
    const style = { size: 8, color: grey } as const
    sheet.text(`${title} ${document.number} · ${seller.legalName}`, margin.left, 32, style)
    sheet.text(`Page ${index + 1} of ${sheet.pages.length}`, right, 32, { ...style, align: 'right' })
  })

  const issuedAt = new Date(document.issuedAt)
  pdf.setTitle(`${title} ${document.number}`)
  pdf.setAuthor(seller.legalName)
  // PDF metadata is UTF-16: the buyer as written, whatever the fonts can show.
  pdf.setSubject(`${title} ${document.number} for ${buyer.name || buyer.email}`)
  pdf.setCreator('CodeBook')
  pdf.setProducer('CodeBook')
  pdf.setLanguage('en')
  pdf.setCreationDate(issuedAt)
  pdf.setModificationDate(issuedAt)
  await pdf.attach(new TextEncoder().encode(JSON.stringify(document, null, 2)), `${document.number}.json`, {
    mimeType: 'application/json',
    description: `${title} ${document.number} as issued`,
    creationDate: issuedAt,
    modificationDate: issuedAt,
  })
  return pdf.save()
}
