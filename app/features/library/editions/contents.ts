import { type Manuscript, plainText } from './manuscript.ts'

/** A chapter of the table of contents: its title and its sections' titles, as plain text. */
export type ContentsChapter = { title: string; sections: string[] }

export type EditionContents = { chapters: ContentsChapter[]; wordCount: number }

/** Words a reader of technical prose reads in a minute: the reading time the book page shows. */
export const wordsPerMinute = 250

/**
 * What a parsed manuscript holds, for the book page: its chapters (`#`) with their sections (`##`), and its
 * words (prose, list items and code tokens alike: a reader reads them all).
 */
export function readContents(manuscript: Manuscript): EditionContents {
  let wordCount = 0
  const count = (text: string) => {
    wordCount += plainText(text).split(/\s+/).filter(Boolean).length
  }
  const chapters = manuscript.chapters.map((chapter) => {
    count(chapter.title)
    const sections: string[] = []
    for (const block of chapter.blocks) {
      if (block.type === 'heading') {
        sections.push(plainText(block.text))
        count(block.text)
      } else if (block.type === 'paragraph') count(block.text)
      else if (block.type === 'list') block.items.forEach(count)
      else if (block.type === 'code') block.lines.forEach(count)
    }
    return { title: plainText(chapter.title), sections }
  })
  return { chapters, wordCount }
}

/** Whole minutes to read `words` at {@link wordsPerMinute}, at least one. */
export function readingMinutes(words: number): number {
  return Math.max(1, Math.round(words / wordsPerMinute))
}

/** '8 min', '1 h', '2 h 35 min'. */
export function formatReadingTime(minutes: number): string {
  const hours = Math.floor(minutes / 60)
  const rest = minutes % 60
  if (hours === 0) return `${rest} min`
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`
}
