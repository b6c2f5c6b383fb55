/**
 * The manuscript format behind every edition (content/books/<slug>.md), a deliberately small Markdown subset:
 * `# Title` starts a chapter, `## Heading` a section, blank lines separate paragraphs (which may span several
 * lines and hold inline `code`), `- item` lines make a list, and ```lang fences hold code (≤ 80 columns, ASCII).
 * `![what the image shows](data:image/png;base64,…)` on a line of its own is a figure (PNG or JPEG, embedded so
 * the manuscript is the whole book; `"a caption"` may follow the data). Its alt text is required: the EPUBs
 * promise a text alternative for every image (EPUB Accessibility, WCAG 1.1.1), so a missing one is an error.
 * Text is limited to characters the PDF standard fonts can encode (WinAnsi), so an edition never silently drops
 * a character: anything else is an error naming the file and line.
 */

import { decodeImageDataUri, type ManuscriptImage } from './manuscript-image.ts'

export type BookInfo = { slug: string; title: string; author: string }

export type Block =
  | { type: 'paragraph'; text: string }
  | { type: 'heading'; text: string }
  | { type: 'list'; items: string[] }
  | { type: 'code'; lang: string; lines: string[] }
  | { type: 'image'; alt: string; caption: string | null; image: ManuscriptImage }

export type Chapter = { title: string; blocks: Block[] }

export type Manuscript = { chapters: Chapter[] }

export type InlineSpan = { code: boolean; text: string }

export class ManuscriptError extends Error {
  override name = 'ManuscriptError'
}

export const maxCodeLineLength = 80

/** Printable ASCII plus the typographic characters the format allows. */
const allowedText = /^[\x20-\x7e—–‘’“”…•é]*$/
const allowedCode = /^[\x20-\x7e]*$/

/** The heading the renderers print for a chapter, as plain text (contents, bookmarks). */
export function chapterLabel(index: number, chapter: Chapter): string {
  return `${chapterPrefix(index)}${plainText(chapter.title)}`
}

export function chapterPrefix(index: number): string {
  return `Chapter ${index + 1} — `
}

/** Text without its inline-code markers. */
export function plainText(text: string): string {
  return text.replaceAll('`', '')
}

/** Splits text on backticks into prose and inline code; the parser has already checked they pair up. */
export function inlineSpans(text: string): InlineSpan[] {
  return text
    .split('`')
    .map((part, index) => ({ code: index % 2 === 1, text: part }))
    .filter((span) => span.text !== '')
}

export function parseManuscript(source: string, fileName = 'manuscript'): Manuscript {
  const lines = source.replace(/\r\n?/g, '\n').split('\n')
  const chapters: Chapter[] = []
  let chapter: Chapter | undefined
  let paragraph: { lines: string[]; start: number } | undefined
  let list: { items: string[]; start: number } | undefined

  const fail = (lineNumber: number, message: string): never => {
    throw new ManuscriptError(`${fileName}:${lineNumber}: ${message}`)
  }
  const checkCharacters = (text: string, lineNumber: number) => {
    const char = [...text].find((char) => !allowedText.test(char))
    if (char !== undefined) {
      const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')
      fail(lineNumber, `character ${JSON.stringify(char)} (U+${code}) cannot be printed in the PDF editions`)
    }
  }
  /** A finished run of text: inline code must pair up within it. */
  const inlineText = (text: string, lineNumber: number): string => {
    if ((text.match(/`/g) ?? []).length % 2 !== 0) fail(lineNumber, 'unpaired ` (inline code)')
    return text
  }
  const currentChapter = (lineNumber: number): Chapter =>
    chapter ?? fail(lineNumber, "text before the first chapter: start the manuscript with '# Chapter title'")
  const flush = () => {
    if (paragraph) {
      const text = paragraph.lines.join(' ')
      currentChapter(paragraph.start).blocks.push({
        type: 'paragraph',
        text: inlineText(text, paragraph.start),
      })
      paragraph = undefined
    }
    if (list) {
      const start = list.start
      const items = list.items.map((item) => inlineText(item, start))
      currentChapter(start).blocks.push({ type: 'list', items })
      list = undefined
    }
  }

  for (let index = 0; index < lines.length; index++) {
    const lineNumber = index + 1
    const raw = lines[index]!
    const line = raw.trimEnd()
    if (raw.includes('\t')) fail(lineNumber, 'tab character: indent with spaces')
    if (!line.startsWith('```')) checkCharacters(line, lineNumber)

    if (line.startsWith('```')) {
      flush()
      const lang = line.slice(3).trim()
      if (!/^[a-z0-9+#-]*$/i.test(lang)) fail(lineNumber, `invalid code language ${JSON.stringify(lang)}`)
      const code: string[] = []
      let closed = false
      for (index++; index < lines.length; index++) {
        const codeLine = lines[index]!.trimEnd()
        if (codeLine.trim() === '```') {
          closed = true
          break
        }
        if (!allowedCode.test(codeLine)) fail(index + 1, 'code may only hold printable ASCII characters')
        if (codeLine.length > maxCodeLineLength) {
          fail(index + 1, `code line is ${codeLine.length} characters long (at most ${maxCodeLineLength})`)
        }
        code.push(codeLine)
      }
      if (!closed) fail(lineNumber, 'code block is never closed with ```')
      while (code.length > 0 && code[0] === '') code.shift()
      while (code.length > 0 && code.at(-1) === '') code.pop()
      if (code.length === 0) fail(lineNumber, 'empty code block')
      currentChapter(lineNumber).blocks.push({ type: 'code', lang: lang.toLowerCase(), lines: code })
      continue
    }

    if (line.trim() === '') {
      flush()
      continue
    }

    const heading = /^(#+)(\s*)(.*)$/.exec(line)
    if (heading) {
      flush()
      const [, hashes = '', space = '', title = ''] = heading
      if (hashes.length > 2) fail(lineNumber, `only '#' (chapter) and '##' (section) headings are supported`)
      if (space === '' || title.trim() === '') fail(lineNumber, `expected '${hashes} Title'`)
      const text = inlineText(title.trim(), lineNumber)
      if (hashes.length === 1) {
        if (chapter && chapter.blocks.length === 0) fail(lineNumber, `chapter "${chapter.title}" has no text`)
        chapter = { title: text, blocks: [] }
        chapters.push(chapter)
      } else {
        currentChapter(lineNumber).blocks.push({ type: 'heading', text })
      }
      continue
    }

    const bullet = /^- (.*)$/.exec(line)
    if (bullet) {
      if (paragraph) flush()
      const item = bullet[1]!.trim()
      if (item === '') fail(lineNumber, 'empty list item')
      list ??= { items: [], start: lineNumber }
      list.items.push(item)
      continue
    }
    if (list && /^\s+\S/.test(line)) {
      // An indented line continues the list item above it.
      const last = list.items.length - 1
      list.items[last] = `${list.items[last]} ${line.trim()}`
      continue
    }

    if (/!\[[^\]]*\]\(/.test(line)) {
      flush()
      currentChapter(lineNumber).blocks.push(parseImage(line, lineNumber, fail))
      continue
    }
    if (/^(\s*[*+] |\s*\d+[.)] |\s*>|\s*\||\s*(-\s*){3,}$|\s*- )/.test(line) || line === '-') {
      fail(
        lineNumber,
        "unsupported Markdown: use '- ' at the start of a line for lists, and no quotes or tables",
      )
    }
    if (list) flush()
    paragraph ??= { lines: [], start: lineNumber }
    paragraph.lines.push(line.trim())
  }
  flush()

  if (chapters.length === 0) fail(1, "no chapters: start the manuscript with '# Chapter title'")
  const last = chapters.at(-1)!
  if (last.blocks.length === 0) fail(lines.length, `chapter "${last.title}" has no text`)
  return { chapters }
}

/** Longest alt text: a sentence or two; a longer description belongs in the text around the figure. */
export const maxAltLength = 300

/** `![alt](data:… "caption")` on a line of its own, alt text required. */
function parseImage(
  line: string,
  lineNumber: number,
  fail: (lineNumber: number, message: string) => never,
): Block {
  // Every image needs a text alternative (EPUB Accessibility, WCAG 1.1.1): said before anything else about it.
  const [, looseAlt = '', looseSrc = ''] = /!\[([^\]]*)\]\(([^)\s]*)/.exec(line) ?? []
  const nameOf = (src: string) => (src.startsWith('data:') ? `${src.slice(0, 22)}…` : src)
  if (looseAlt.trim() === '') {
    fail(
      lineNumber,
      `image ${JSON.stringify(nameOf(looseSrc))} has no alt text: write ![what the image shows](…)`,
    )
  }
  const match = /^!\[([^\]]*)\]\((\S*)(?:\s+"([^"]*)")?\)$/.exec(line.trim())
  if (!match) {
    return fail(
      lineNumber,
      'an image goes on a line of its own: ![what the image shows](data:image/png;base64,…) with an optional "caption"',
    )
  }
  const [, alt = '', src = '', caption] = match
  if (alt.length > maxAltLength) {
    fail(
      lineNumber,
      `alt text is ${alt.length} characters long (at most ${maxAltLength}): say the rest in the text`,
    )
  }
  const image = decodeImageDataUri(src)
  if (typeof image === 'string') return fail(lineNumber, `image ${JSON.stringify(nameOf(src))}: ${image}`)
  return { type: 'image', alt: alt.trim(), caption: caption?.trim() || null, image }
}
