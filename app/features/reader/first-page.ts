import {
  chapterPrefix,
  inlineSpans,
  plainText,
  type Block,
  type Manuscript,
} from '#app/features/library/editions/manuscript.ts'

/**
 * The reader's first screen as the server renders it (decision 041): the text of the place the book opens at,
 * readable before any script arrives; foliate-js then lays the same place out in its frame and takes over.
 * Plain data (it travels in the loader's JSON), rendered by `first-page.tsx` as the EPUB's chapter renders it.
 */
export type FirstPageSpan = { code: boolean; text: string }
export type FirstPageBlock =
  | { type: 'chapter-heading'; prefix: string; spans: FirstPageSpan[] }
  | { type: 'heading'; spans: FirstPageSpan[] }
  /** `continued`: the page begins inside this paragraph (a saved place), so it is not a new one. */
  | { type: 'paragraph'; spans: FirstPageSpan[]; continued?: boolean }
  | { type: 'list'; items: FirstPageSpan[][] }
  | { type: 'code'; lines: string[] }
export type FirstPage = { chapter: number; blocks: FirstPageBlock[] }

/**
 * About as much text as a laptop's two columns hold at the default size (a phone shows a third of it): the box
 * clips the rest, and the HTML stays a few KB.
 */
const FIRST_PAGE_CHARS = 4000

const spans = (text: string): FirstPageSpan[] => inlineSpans(text)
const normalise = (text: string) => text.replace(/\s+/g, ' ')

/** A block's text as the reader's page has it (`Range.toString()`, white space collapsed). */
function blockText(block: Block): string {
  switch (block.type) {
    case 'paragraph':
    case 'heading':
      return plainText(block.text)
    case 'list':
      return block.items.map(plainText).join(' ')
    case 'code':
      return block.lines.join(' ')
    case 'image':
      return block.caption ?? ''
  }
}

/** Drops the first `count` characters of the spans' text (white space collapsed, as in `normalise`). */
function skipChars(source: FirstPageSpan[], count: number): FirstPageSpan[] {
  let left = count
  const kept: FirstPageSpan[] = []
  for (const span of source) {
    const text = normalise(span.text)
    if (left >= text.length) {
      left -= text.length
      continue
    }
    kept.push({ code: span.code, text: text.slice(left) })
    left = 0
  }
  return kept
}

/**
 * Where the book opens: the first chapter (foliate-js's 'bodymatter' landmark, past the cover, title page and
 * contents), or the page a saved place quotes (its first words, as the reader saved them), found in the
 * chapters' text: null when the quote is not found (foliate-js then goes by the place's fraction alone).
 */
export function findOpening(
  manuscript: Manuscript,
  quote: string | null,
): { chapter: number; block: number; skip: number } | null {
  if (!quote) return manuscript.chapters.length ? { chapter: 0, block: -1, skip: 0 } : null
  const wanted = normalise(quote).trim()
  if (wanted.length < 12) return null
  for (const [chapterIndex, chapter] of manuscript.chapters.entries()) {
    // The chapter's text as one line, with where each block starts in it (-1: the chapter's heading).
    const pieces = [
      { block: -1, text: normalise(`${chapterPrefix(chapterIndex)}${plainText(chapter.title)}`) },
      ...chapter.blocks.map((block, index) => ({ block: index, text: normalise(blockText(block)) })),
    ]
    let text = ''
    const starts: number[] = []
    for (const piece of pieces) {
      if (text) text += ' '
      starts.push(text.length)
      text += piece.text
    }
    const at = text.indexOf(wanted)
    if (at === -1) continue
    let index = 0
    while (index + 1 < starts.length && starts[index + 1]! <= at) index++
    const piece = pieces[index]!
    const skip = at - starts[index]!
    // Inside a listing, a list or a heading the page begins with the whole of it: only a paragraph is cut.
    const cut = piece.block >= 0 && chapter.blocks[piece.block]?.type === 'paragraph' ? skip : 0
    return { chapter: chapterIndex, block: piece.block, skip: cut }
  }
  return null
}

/** The first screen's blocks from `opening` on: about a spread of text, up to the first figure. */
export function firstPageOf(
  manuscript: Manuscript,
  opening: { chapter: number; block: number; skip: number },
): FirstPage | null {
  const chapter = manuscript.chapters[opening.chapter]
  if (!chapter) return null
  const blocks: FirstPageBlock[] = []
  let chars = 0
  if (opening.block === -1) {
    blocks.push({
      type: 'chapter-heading',
      prefix: chapterPrefix(opening.chapter),
      spans: spans(chapter.title),
    })
    chars += chapter.title.length
  }
  for (let index = Math.max(0, opening.block); index < chapter.blocks.length; index++) {
    if (chars >= FIRST_PAGE_CHARS) break
    const block = chapter.blocks[index]!
    const first = index === opening.block && opening.skip > 0
    switch (block.type) {
      case 'paragraph':
        blocks.push(
          first
            ? { type: 'paragraph', spans: skipChars(spans(block.text), opening.skip), continued: true }
            : { type: 'paragraph', spans: spans(block.text) },
        )
        break
      case 'heading':
        blocks.push({ type: 'heading', spans: spans(block.text) })
        break
      case 'list':
        blocks.push({ type: 'list', items: block.items.map(spans) })
        break
      case 'code':
        blocks.push({ type: 'code', lines: block.lines })
        break
      case 'image':
        // Its picture is inside the EPUB, at no URL of the page's own: the first screen stops before it.
        return { chapter: opening.chapter, blocks }
    }
    chars += blockText(block).length
  }
  return { chapter: opening.chapter, blocks }
}
