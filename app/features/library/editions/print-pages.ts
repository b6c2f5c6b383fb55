/**
 * Where each page of the PDF edition starts, in terms of the manuscript, so the EPUB can mark the same page
 * breaks (EPUB Accessibility 1.1's page navigation: a reader in a class and one with the printout on the same
 * page). The PDF renderer records these as it lays pages out; the EPUB renderer places a page-break marker at
 * each one.
 */
export type PageStart =
  | { part: 'title' }
  /** `row`: the first entry of the contents on that page (0: the page with the heading). */
  | { part: 'contents'; row: number }
  /**
   * `block` -1 is the chapter's heading. `at`, inside a block: a paragraph's or list item's text from `chars`
   * characters in, spaces not counted (the PDF breaks lines at spaces, and a space may be two in the source);
   * a code listing's `line`. Without `at` the page starts at the block.
   */
  | {
      part: 'chapter'
      chapter: number
      block: number
      at?: { item: number; chars: number } | { line: number }
    }
  | { part: 'closing' }

export type PrintPage = { number: number; start: PageStart }

/** The number of characters of `text` that are not spaces: how a page start inside a run of text is measured. */
export function countInk(text: string): number {
  let count = 0
  for (let index = 0; index < text.length; index++) if (text[index] !== ' ') count++
  return count
}
