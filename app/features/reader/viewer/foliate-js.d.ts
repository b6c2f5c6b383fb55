// The parts of foliate-js 1.0.1 (plain ES modules without types) the reader uses, as its README and source
// describe them.

declare module 'foliate-js/view.js' {
  /** `id` is given to each item when a book opens, in document order. */
  export type TocItem = { id?: number; label: string; href: string; subitems?: TocItem[] }

  export type Book = {
    toc?: TocItem[]
    sections: { linear?: string }[]
    metadata?: { title?: unknown; language?: string }
    dir?: string
  }

  /** Where the reader is: what `relocate` carries and `lastLocation` holds. */
  export type Location = {
    /** Of the whole book, 0..1. */
    fraction: number
    cfi: string
    /** The visible text. */
    range: Range
    tocItem?: TocItem | null
    section?: { current: number; total: number }
  }

  export type SearchExcerpt = { pre: string; match: string; post: string }
  export type SearchResult =
    'done' | { progress: number } | { label: string; subitems: { cfi: string; excerpt: SearchExcerpt }[] }

  export type Renderer = HTMLElement & {
    setStyles(styles: string | [string, string]): void
    getContents(): { index: number; doc: Document; overlayer?: unknown }[]
    next(): Promise<void>
    prev(): Promise<void>
    focusView(): void
  }

  /** What an overlayer's drawing function is given: the highlighted text's rectangles, and its options. */
  export type Draw = (rects: DOMRectReadOnly[], options?: Record<string, unknown>) => SVGElement

  export interface DrawAnnotationEvent {
    draw: (draw: Draw, options?: Record<string, unknown>) => void
    annotation: { value: string }
    doc: Document
    range: Range
  }

  export interface ViewEventMap {
    relocate: CustomEvent<Location>
    load: CustomEvent<{ doc: Document; index: number }>
    'create-overlay': CustomEvent<{ index: number }>
    'draw-annotation': CustomEvent<DrawAnnotationEvent>
    'show-annotation': CustomEvent<{ value: string; index: number; range: Range }>
    link: CustomEvent<{ a: HTMLAnchorElement; href: string }>
    'external-link': CustomEvent<{ a: HTMLAnchorElement; href: string }>
  }

  export class View extends HTMLElement {
    book: Book
    renderer: Renderer
    lastLocation: Location | null
    open(book: Blob | File | string): Promise<void>
    close(): void
    init(options: { lastLocation?: string; showTextStart?: boolean }): Promise<void>
    goTo(target: string | number): Promise<unknown>
    resolveCFI(cfi: string): { index: number; anchor: (doc: Document) => Range }
    goToFraction(fraction: number): Promise<void>
    goToTextStart(): Promise<void>
    next(): Promise<void>
    prev(): Promise<void>
    goLeft(): Promise<void>
    goRight(): Promise<void>
    getCFI(index: number, range: Range): string
    addAnnotation(annotation: { value: string }, remove?: boolean): Promise<{ index: number; label: string }>
    deleteAnnotation(annotation: { value: string }): Promise<unknown>
    search(options: {
      query: string
      matchCase?: boolean
      matchWholeWords?: boolean
    }): AsyncGenerator<SearchResult>
    clearSearch(): void
    deselect(): void
    getTOCItemOf(target: string): Promise<{ label: string } | undefined>
    addEventListener<K extends keyof ViewEventMap>(
      type: K,
      listener: (event: ViewEventMap[K]) => void,
      options?: boolean | AddEventListenerOptions,
    ): void
    addEventListener(
      type: string,
      listener: EventListenerOrEventListenerObject,
      options?: boolean | AddEventListenerOptions,
    ): void
  }
}

declare module 'foliate-js/overlayer.js' {
  import type { Draw } from 'foliate-js/view.js'
  export class Overlayer {
    static highlight: Draw
    static underline: Draw
    static outline: Draw
  }
}

/** Loaded ahead by `BookViewer.preload` only; foliate-js's view uses them itself. */
declare module 'foliate-js/vendor/zip.js'
declare module 'foliate-js/epub.js'
declare module 'foliate-js/paginator.js'
