/**
 * How a book's pages look in the reader: the reader's theme and text size, and listings that keep their layout.
 * Applied to each section document as a constructed stylesheet (the page's Content-Security-Policy allows no
 * inline `<style>`, and does not govern constructed sheets), over the EPUB's own stylesheet.
 */

export const readerThemes = ['light', 'dark', 'sepia'] as const
export type ReaderTheme = (typeof readerThemes)[number]

export const readerThemeLabels: Record<ReaderTheme, string> = {
  light: 'Light',
  dark: 'Dark',
  sepia: 'Sepia',
}

/** Each theme's colours; every text colour passes WCAG AA on its background (links and listings too). */
export const readerPalettes: Record<
  ReaderTheme,
  { scheme: 'light' | 'dark'; background: string; text: string; link: string; code: string; border: string }
> = {
  light: {
    scheme: 'light',
    background: '#ffffff',
    text: '#0f172a',
    link: '#1d4ed8',
    code: '#f1f5f9',
    border: '#64748b',
  },
  dark: {
    scheme: 'dark',
    background: '#1e293b',
    text: '#f1f5f9',
    link: '#7dd3fc',
    code: '#0f172a',
    border: '#94a3b8',
  },
  sepia: {
    scheme: 'light',
    background: '#f4ecd8',
    text: '#3b2f1e',
    link: '#7c2d12',
    code: '#ebe0c4',
    border: '#7c6a4f',
  },
}

/** Text sizes, in per cent of the book's own. */
export const FONT_SIZES = [80, 90, 100, 110, 120, 135, 150, 175, 200] as const
export const DEFAULT_FONT_SIZE = 100

/** The next size up or down from `size`, staying within the scale. */
export function stepFontSize(size: number, direction: 1 | -1): number {
  const index = FONT_SIZES.findIndex((candidate) => candidate >= size)
  const at = index === -1 ? FONT_SIZES.length - 1 : index
  return FONT_SIZES[Math.min(FONT_SIZES.length - 1, Math.max(0, at + direction))]!
}

/** Marks what the reader adds to a section document (the listings' Copy buttons): not part of the book's text. */
export const READER_UI_ATTRIBUTE = 'data-codebook-reader'

export function sectionStyles({ theme, fontSize }: { theme: ReaderTheme; fontSize: number }): string {
  const palette = readerPalettes[theme]
  return `
:root {
  color-scheme: ${palette.scheme};
  --theme-bg-color: ${palette.background};
  background-color: ${palette.background} !important;
  color: ${palette.text} !important;
  font-size: ${fontSize}% !important;
}
body { background: transparent !important; color: inherit !important; }
body :not(a, a *, [${READER_UI_ATTRIBUTE}]) { color: inherit !important; }
a:any-link { color: ${palette.link} !important; }
/* Listings keep their lines as written and scroll sideways; one taller than a page scrolls within it. */
pre {
  position: relative;
  white-space: pre !important;
  overflow-wrap: normal !important;
  word-break: normal !important;
  overflow: auto !important;
  max-height: calc(100vh - 4em);
  tab-size: 4;
  background: ${palette.code} !important;
  color: ${palette.text} !important;
}
pre code { white-space: inherit !important; }
pre:focus-visible, [${READER_UI_ATTRIBUTE}]:focus-visible { outline: 2px solid ${palette.link}; outline-offset: 2px; }
[${READER_UI_ATTRIBUTE}] {
  display: block;
  position: sticky;
  left: 0;
  margin-top: 0.6em;
  padding: 0.2em 0.8em;
  font: 600 0.8rem/1.5 system-ui, sans-serif;
  color: ${palette.text};
  background: ${palette.background};
  border: 1px solid ${palette.border};
  border-radius: 0.375rem;
  cursor: pointer;
}
`
}

/**
 * Puts a 'Copy' button in each listing of a section, as the listing's last child: every node of the book keeps
 * its place, so positions (CFIs) in this document are the EPUB's own. The listing itself becomes focusable,
 * so a keyboard can scroll it sideways.
 */
export function decorateListings(doc: Document, onCopied: (copied: boolean) => void) {
  for (const listing of doc.querySelectorAll('pre')) {
    if (listing.querySelector(`[${READER_UI_ATTRIBUTE}]`)) continue
    listing.tabIndex = 0
    const button = doc.createElement('button')
    button.type = 'button'
    button.setAttribute(READER_UI_ATTRIBUTE, 'copy')
    button.textContent = 'Copy'
    button.setAttribute('aria-label', 'Copy this listing')
    button.addEventListener('click', () => {
      const code = textWithoutReaderUi(listing)
      copyText(doc, code).then(
        () => {
          button.textContent = 'Copied'
          setTimeout(() => (button.textContent = 'Copy'), 2000)
          onCopied(true)
        },
        () => onCopied(false),
      )
    })
    listing.append(button)
  }
}

/**
 * An element's or range's text without what the reader added to it (the Copy buttons' labels). Not
 * `instanceof Range`: a section's ranges are made by its frame's window, whose classes are not this one's.
 */
export function textWithoutReaderUi(source: Element | Range): string {
  const copy = 'cloneContents' in source ? source.cloneContents() : source.cloneNode(true)
  for (const added of (copy as ParentNode).querySelectorAll(`[${READER_UI_ATTRIBUTE}]`)) added.remove()
  return copy.textContent ?? ''
}

/** The clipboard of the section's frame (the click's user activation is there), else a selection copied. */
async function copyText(doc: Document, text: string) {
  const clipboard = doc.defaultView?.navigator.clipboard
  if (clipboard) {
    try {
      return await clipboard.writeText(text)
    } catch {
      // Refused (a frame without the permission): the older way below.
    }
  }
  const area = doc.createElement('textarea')
  area.value = text
  area.setAttribute(READER_UI_ATTRIBUTE, 'clipboard')
  doc.body.append(area)
  area.select()
  const copied = doc.execCommand('copy')
  area.remove()
  if (!copied) throw new Error('the listing could not be copied')
}

/**
 * The first `length` characters of some text, on one line: what a saved place or a note quotes. Cut short
 * without an ellipsis: the server finds the place again in a new edition by this text.
 */
export function shortQuote(text: string, length: number): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, length).trimEnd()
}
