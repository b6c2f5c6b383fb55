import {
  beginText,
  endText,
  fill,
  type PDFDocument,
  type PDFFont,
  PDFName,
  type PDFPage,
  popGraphicsState,
  pushGraphicsState,
  rectangle,
  setFillingRgbColor,
  setFontAndSize,
  setWordSpacing,
  showText,
  StandardFonts,
  moveText,
} from 'pdf-lib'

/**
 * A small typesetter over pdf-lib: a cursor that flows lines down the page and starts new pages, and greedy line
 * breaking of mixed-font text. Text is written with our own operators and fixed font resource names (pdf-lib's
 * drawText adds a new font key per call), and justification uses the PDF word-spacing operator, so each line
 * stays one extractable string.
 */

export const pageSize = { width: 540, height: 666 } // 7.5 × 9.25 in, a common size for technical books
export const margin = { top: 66, right: 63, bottom: 72, left: 63 }
export const textWidth = pageSize.width - margin.left - margin.right
/** Page numbers sit in the footer area; the social-DRM stamp goes on a line below them. */
export const pageNumberBaseline = 44
export const stampBaseline = 22

export type Color = readonly [number, number, number]
export const black: Color = [0.1, 0.1, 0.1]
export const grey: Color = [0.42, 0.42, 0.42]

const fontFiles = {
  body: StandardFonts.TimesRoman,
  italic: StandardFonts.TimesRomanItalic,
  sans: StandardFonts.Helvetica,
  bold: StandardFonts.HelveticaBold,
  mono: StandardFonts.Courier,
} as const
export type FontName = keyof typeof fontFiles
type Fonts = Record<FontName, PDFFont>

/** A run of text in one font; a word is one or more pieces with no space between them. */
export type Piece = { text: string; font: FontName }
type Word = Piece[]
export type Line = { words: Word[]; width: number }

export async function embedFonts(doc: PDFDocument): Promise<Fonts> {
  const entries = await Promise.all(
    Object.entries(fontFiles).map(async ([name, file]) => [name, await doc.embedFont(file)] as const),
  )
  return Object.fromEntries(entries) as Fonts
}

/** Draws one line of text in one font at a baseline, with fixed resource names (F-body, F-mono, …). */
export function drawText(
  page: PDFPage,
  font: PDFFont,
  key: string,
  text: string,
  options: { x: number; y: number; size: number; color?: Color; wordSpacing?: number },
): void {
  const [r, g, b] = options.color ?? black
  page.node.setFontDictionary(PDFName.of(key), font.ref)
  page.pushOperators(
    pushGraphicsState(),
    beginText(),
    setFillingRgbColor(r, g, b),
    setFontAndSize(key, options.size),
    ...(options.wordSpacing ? [setWordSpacing(options.wordSpacing)] : []),
    moveText(options.x, options.y),
    showText(font.encodeText(text)),
    endText(),
    popGraphicsState(),
  )
}

export class PdfWriter {
  readonly pages: PDFPage[] = []
  page!: PDFPage
  /** The top of the next line, in PDF coordinates (from the bottom of the page). */
  y = 0
  /** Called with each page as it starts: how the renderer records what each page starts with. */
  onNewPage: (page: PDFPage) => void = () => {}

  constructor(
    readonly doc: PDFDocument,
    readonly fonts: Fonts,
  ) {}

  newPage(): PDFPage {
    this.page = this.doc.addPage([pageSize.width, pageSize.height])
    this.pages.push(this.page)
    this.y = pageSize.height - margin.top
    this.onNewPage(this.page)
    return this.page
  }

  /** Starts a new page unless `height` more points fit above the bottom margin. */
  ensure(height: number): void {
    if (this.y - height < margin.bottom) this.newPage()
  }

  width(text: string, font: FontName, size: number): number {
    return this.fonts[font].widthOfTextAtSize(text, size)
  }

  text(text: string, font: FontName, options: { x: number; y: number; size: number; color?: Color }): void {
    drawText(this.page, this.fonts[font], `F-${font}`, text, options)
  }

  rect(x: number, y: number, width: number, height: number, [r, g, b]: Color): void {
    this.page.pushOperators(
      pushGraphicsState(),
      setFillingRgbColor(r, g, b),
      rectangle(x, y, width, height),
      fill(),
      popGraphicsState(),
    )
  }

  /** Greedy line breaking; a word wider than the line is cut between characters. */
  wrap(pieces: Piece[], size: number, maxWidth: number): Line[] {
    const words = this.splitWords(pieces).flatMap((word) => this.cutWord(word, size, maxWidth))
    const lines: Line[] = []
    let current: Line = { words: [], width: 0 }
    for (const word of words) {
      const wordWidth = this.wordWidth(word, size)
      const last = current.words.at(-1)
      const spaced = last
        ? current.width + this.width(' ', spaceFont(last, word), size) + wordWidth
        : wordWidth
      if (last && spaced > maxWidth) {
        lines.push(current)
        current = { words: [word], width: wordWidth }
      } else {
        current = { words: [...current.words, word], width: spaced }
      }
    }
    if (current.words.length > 0) lines.push(current)
    return lines
  }

  /** Draws a wrapped line; `justifyTo` stretches the spaces to fill that width (not for a paragraph's last line). */
  drawLine(
    line: Line,
    options: { x: number; y: number; size: number; justifyTo?: number; color?: Color },
  ): void {
    // Each space joins the run of one of its neighbours, so runs of one font are drawn as one string.
    const runs: Piece[] = []
    const add = (text: string, font: FontName) => {
      const previous = runs.at(-1)
      if (previous && previous.font === font) previous.text += text
      else runs.push({ text, font })
    }
    line.words.forEach((word, index) => {
      const before = line.words[index - 1]
      const leading = before ? spaceFont(before, word) !== before.at(-1)!.font : false
      word.forEach((piece, pieceIndex) =>
        add((pieceIndex === 0 && leading ? ' ' : '') + piece.text, piece.font),
      )
      const after = line.words[index + 1]
      if (after && spaceFont(word, after) === word.at(-1)!.font) add(' ', word.at(-1)!.font)
    })
    const gaps = line.words.length - 1
    let extra = 0
    if (options.justifyTo !== undefined && gaps > 0) {
      extra = (options.justifyTo - line.width) / gaps
      // A line with a few long words would get gaping holes: leave it ragged instead.
      if (extra < 0 || extra > options.size * 0.7) extra = 0
    }
    let x = options.x
    for (const run of runs) {
      const spaces = run.text.split(' ').length - 1
      drawText(this.page, this.fonts[run.font], `F-${run.font}`, run.text, {
        x,
        y: options.y,
        size: options.size,
        color: options.color,
        wordSpacing: spaces > 0 ? extra : 0,
      })
      x += this.width(run.text, run.font, options.size) + extra * spaces
    }
  }

  private splitWords(pieces: Piece[]): Word[] {
    const words: Word[] = []
    let current: Word = []
    for (const piece of pieces) {
      piece.text.split(' ').forEach((part, index) => {
        if (index > 0 && current.length > 0) {
          words.push(current)
          current = []
        }
        if (part !== '') current.push({ text: part, font: piece.font })
      })
    }
    if (current.length > 0) words.push(current)
    return words
  }

  private cutWord(word: Word, size: number, maxWidth: number): Word[] {
    if (this.wordWidth(word, size) <= maxWidth) return [word]
    const parts: Word[] = []
    let current: Word = []
    let width = 0
    for (const piece of word) {
      for (const char of piece.text) {
        const charWidth = this.width(char, piece.font, size)
        if (width + charWidth > maxWidth && width > 0) {
          parts.push(current)
          current = []
          width = 0
        }
        const last = current.at(-1)
        if (last && last.font === piece.font) last.text += char
        else current.push({ text: char, font: piece.font })
        width += charWidth
      }
    }
    if (current.length > 0) parts.push(current)
    return parts
  }

  private wordWidth(word: Word, size: number): number {
    return word.reduce((sum, piece) => sum + this.width(piece.text, piece.font, size), 0)
  }
}

/** The font of the space between two words: code's wide spaces only between two pieces of code. */
function spaceFont(before: Word, after: Word): FontName {
  const font = before.at(-1)!.font
  return font === 'mono' ? after[0]!.font : font
}
