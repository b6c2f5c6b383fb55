import type { Location, SearchResult, TocItem, View } from 'foliate-js/view.js'
import {
  decorateListings,
  sectionStyles,
  shortQuote,
  textWithoutReaderUi,
  type ReaderTheme,
} from './section-styles.ts'

export type Appearance = { theme: ReaderTheme; fontSize: number }

/** Where the reader is, as the chrome shows it and the server keeps it. */
export type ReaderLocation = {
  cfi: string
  fraction: number
  /** The first words on the page. */
  quote: string
  tocItem: TocItem | null
}

export type TextSelection = { cfi: string; text: string; tocLabel: string }

/** Keys that turn pages, wherever the focus is in the reader (its chrome or the book's page). */
export const pageKeys: Record<string, 'left' | 'right' | 'prev' | 'next'> = {
  ArrowLeft: 'left',
  ArrowRight: 'right',
  PageUp: 'prev',
  PageDown: 'next',
}

const HIGHLIGHT_COLOR = '#facc15'
/** The longest text a highlight keeps (the store's limit for a highlight's quote). */
const SELECTION_MAX = 2000

/**
 * One open book in foliate-js's `<foliate-view>`: opens the EPUB in `container`, styles and decorates each
 * section as it loads, draws highlights, reports where the reader is and what they select. The React chrome
 * (book-reader.tsx) drives it; nothing here knows of the store.
 */
export class BookViewer {
  readonly view: View
  #appearance: Appearance
  #sheets = new Map<Document, CSSStyleSheet>()
  #highlights = new Set<string>()
  #selectionTimer: ReturnType<typeof setTimeout> | undefined

  private constructor(
    view: View,
    appearance: Appearance,
    private readonly events: {
      onRelocate: (location: ReaderLocation) => void
      onSelection: (selection: TextSelection | null) => void
      onPageKey: (key: 'left' | 'right' | 'prev' | 'next') => void
      onShowHighlight: (cfi: string) => void
      onCopied: (copied: boolean) => void
      /** Names each section's frame for screen readers (foliate-js leaves it untitled). */
      frameTitle: string
    },
  ) {
    this.view = view
    this.#appearance = appearance
  }

  /**
   * Starts fetching foliate-js's modules that opening an EPUB needs. foliate-js imports them one after another
   * as it opens a book (the view, then zip, the EPUB parser and the paginator): on a slow network each is a
   * round trip of its own, which this turns into one, beside the book's own download.
   */
  static preload() {
    return Promise.all([
      import('foliate-js/view.js'),
      import('foliate-js/overlayer.js'),
      import('foliate-js/vendor/zip.js'),
      import('foliate-js/epub.js'),
      import('foliate-js/paginator.js'),
    ])
  }

  static async open(
    container: HTMLElement,
    file: File,
    appearance: Appearance,
    events: BookViewer['events'],
  ): Promise<BookViewer> {
    // Loaded here, not at the top: the module defines custom elements, which only a browser has.
    await import('foliate-js/view.js')
    const { Overlayer } = await import('foliate-js/overlayer.js')
    const view = document.createElement('foliate-view') as View
    view.className = 'block h-full w-full'
    container.replaceChildren(view)
    const viewer = new BookViewer(view, appearance, events)
    view.addEventListener('load', ({ detail }) => viewer.#onSectionLoad(detail.doc))
    view.addEventListener('relocate', ({ detail }) => events.onRelocate(locationOf(detail)))
    view.addEventListener('create-overlay', () => {
      for (const cfi of viewer.#highlights) void view.addAnnotation({ value: cfi })
    })
    view.addEventListener('draw-annotation', ({ detail }) =>
      detail.draw(Overlayer.highlight, { color: HIGHLIGHT_COLOR }),
    )
    view.addEventListener('show-annotation', ({ detail }) => events.onShowHighlight(detail.value))
    // Links out of the book open in a new tab; foliate-js asks first.
    view.addEventListener('external-link', (event) => event.preventDefault())
    await view.open(file)
    view.renderer.setAttribute('flow', 'paginated')
    view.renderer.setAttribute('max-inline-size', '720px')
    view.renderer.setAttribute('margin', '40px')
    view.renderer.setAttribute('gap', '6%')
    return viewer
  }

  get toc(): TocItem[] {
    return this.view.book.toc ?? []
  }

  /** To a fraction of the book, else where the text starts (past the cover and title). */
  async start(place: { fraction?: number }) {
    if (place.fraction !== undefined && place.fraction > 0) await this.view.goToFraction(place.fraction)
    else await this.view.goToTextStart()
  }

  /**
   * To a place (a CFI: a saved page, or words found in this edition): the page its range begins on. foliate-js
   * places a range by its first rectangle's left edge, and a range that begins a page can come out a subpixel
   * short of it, on the page before; then it is placed again by a point inside its first character.
   */
  async startAt(cfi: string) {
    // foliate-js says where it went once the page is laid out, which can be after `init` returns.
    const placed = new Promise((resolve) => {
      this.view.addEventListener('relocate', resolve, { once: true })
      setTimeout(resolve, 2000)
    })
    // A CFI this edition cannot resolve (foliate-js logs it) falls back to where the text starts.
    await this.view.init({ lastLocation: cfi, showTextStart: true })
    await placed
    let index: number
    let target: Range
    const visible = this.view.lastLocation?.range
    try {
      const resolved = this.view.resolveCFI(cfi)
      const doc = this.view.renderer.getContents().find((content) => content.index === resolved.index)?.doc
      if (!doc || !visible || visible.startContainer.ownerDocument !== doc) return
      index = resolved.index
      target = resolved.anchor(doc)
    } catch {
      // Not a place in this edition: foliate-js has shown where the text starts.
      return
    }
    // The page on screen ends after the place starts: it is the place's page.
    if (visible.compareBoundaryPoints(Range.START_TO_END, target) > 0) return
    const { startContainer: node, startOffset: offset } = target
    if (node.nodeType !== Node.TEXT_NODE || offset + 1 > (node as Text).length) return void this.view.next()
    const inside = node.ownerDocument!.createRange()
    inside.setStart(node, offset + 1)
    await this.view.goTo(this.view.getCFI(index, inside))
  }

  turn(direction: 'left' | 'right' | 'prev' | 'next') {
    const { view } = this
    return direction === 'left'
      ? view.goLeft()
      : direction === 'right'
        ? view.goRight()
        : direction === 'prev'
          ? view.prev()
          : view.next()
  }

  goTo(target: string) {
    return this.view.goTo(target)
  }

  setAppearance(appearance: Appearance) {
    this.#appearance = appearance
    for (const [doc, sheet] of this.#sheets) {
      if (!doc.defaultView) this.#sheets.delete(doc)
      else sheet.replaceSync(sectionStyles(appearance))
    }
    // The paginator paints the margins around the page in the section's background (`--theme-bg-color`),
    // read again when its styles are set; the empty string keeps its own <style> elements empty.
    this.view.renderer.setStyles('')
  }

  showHighlights(cfis: string[]) {
    const wanted = new Set(cfis)
    for (const cfi of this.#highlights) if (!wanted.has(cfi)) void this.view.deleteAnnotation({ value: cfi })
    for (const cfi of wanted) if (!this.#highlights.has(cfi)) void this.view.addAnnotation({ value: cfi })
    this.#highlights = wanted
  }

  search(query: string): AsyncGenerator<SearchResult> {
    return this.view.search({ query })
  }

  /** Where a quote from an older edition is in this one: its first match, or null. */
  async findQuote(quote: string): Promise<string | null> {
    // A quote's start is enough to find it, and a long query is slow to match.
    const query = quote.slice(0, 120).trim()
    if (!query) return null
    try {
      for await (const result of this.view.search({ query, matchCase: true })) {
        if (result === 'done') break
        if (typeof result === 'object' && 'subitems' in result && result.subitems[0])
          return result.subitems[0].cfi
      }
      return null
    } finally {
      this.view.clearSearch()
    }
  }

  clearSearch() {
    this.view.clearSearch()
  }

  clearSelection() {
    this.view.deselect()
    this.events.onSelection(null)
  }

  close() {
    clearTimeout(this.#selectionTimer)
    this.view.close()
    this.view.remove()
    this.#sheets.clear()
  }

  #onSectionLoad(doc: Document) {
    const frame = doc.defaultView
    if (!frame) return
    // A constructed sheet belongs to the document whose window made it.
    const sheet = new (frame as Window & typeof globalThis).CSSStyleSheet()
    sheet.replaceSync(sectionStyles(this.#appearance))
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet]
    this.#sheets.set(doc, sheet)
    frame.frameElement?.setAttribute('title', this.events.frameTitle)
    decorateListings(doc, this.events.onCopied)
    // Keys pressed while the book's page has the focus never reach the page around it.
    doc.addEventListener('keydown', (event) => {
      const direction = pageKeys[event.key]
      if (!direction || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return
      event.preventDefault()
      this.events.onPageKey(direction)
    })
    doc.addEventListener('selectionchange', () => {
      clearTimeout(this.#selectionTimer)
      this.#selectionTimer = setTimeout(() => this.#reportSelection(doc), 250)
    })
  }

  #reportSelection(doc: Document) {
    const selection = doc.getSelection()
    const range = selection && selection.rangeCount > 0 ? selection.getRangeAt(0) : null
    const text = range && !range.collapsed ? shortQuote(textWithoutReaderUi(range), SELECTION_MAX) : ''
    if (!range || !text) return this.events.onSelection(null)
    const index = this.view.renderer.getContents().find((content) => content.doc === doc)?.index
    if (index === undefined) return
    const cfi = this.view.getCFI(index, range)
    const tocLabel = this.view.lastLocation?.tocItem?.label ?? ''
    this.events.onSelection({ cfi, text, tocLabel })
  }
}

function locationOf(detail: Location): ReaderLocation {
  return {
    cfi: detail.cfi,
    fraction: Math.min(1, Math.max(0, detail.fraction ?? 0)),
    quote: detail.range ? shortQuote(textWithoutReaderUi(detail.range), 120) : '',
    tocItem: detail.tocItem ?? null,
  }
}
