import { useEffect, useMemo, useRef, useState } from 'react'
import type { Theme } from '#app/features/theme/theme.ts'
import { BookViewer, pageKeys, type ReaderLocation, type TextSelection } from './book-viewer.ts'
import { NotesList } from './notes-panel.tsx'
import { createPositionSaver } from './position-saver.ts'
import {
  createAnnotation,
  deleteAnnotation,
  fetchBookFile,
  fetchReadingState,
  moveAnnotation,
  readerUrls,
  savePosition,
  updateAnnotationNote,
  type Annotation,
  type PositionUpdate,
  type ReaderMode,
} from './reader-api.ts'
import { ErratumDialog, HighlightDialog } from './reader-dialogs.tsx'
import { BookSearch, ContentsList, ReaderPanel } from './reader-panels.tsx'
import { PageBar, panelTitles, ReaderToolbar, type ReaderPanelName } from './reader-bars.tsx'
import { chromeButton } from './reader-styles.ts'
import { BookFirstPage } from './first-page.tsx'
import type { FirstPage } from '#app/features/reader/first-page.ts'
import { readerPalettes, shortQuote } from './section-styles.ts'
import { useReaderAppearance } from './use-reader-appearance.ts'

export type BookReaderProps = {
  mode: ReaderMode
  book: { slug: string; title: string; edition: number }
  storeTheme: Theme
  /** The first screen's text as the server rendered it, shown until foliate-js has laid out its page. */
  firstPage: FirstPage | null
}

type Panel = ReaderPanelName

/**
 * The online reader (issue 29), rendered in the browser only and loaded only by the reader's page: the book in
 * foliate-js's view, with contents, search, text size and theme, pages turned by buttons, keys and swipes; for
 * the owner, their place saved as they read and restored on any device, bookmarks and highlights with notes;
 * for everyone, errata reported from a selection.
 */
export default function BookReader({ mode, book, storeTheme, firstPage }: BookReaderProps) {
  const owner = mode === 'owner'
  const urls = readerUrls(book.slug)
  const containerRef = useRef<HTMLDivElement>(null)
  const [viewer, setViewer] = useState<BookViewer | null>(null)
  const [failure, setFailure] = useState('')
  const [location, setLocation] = useState<ReaderLocation | null>(null)
  const [appearance, setAppearance] = useReaderAppearance(storeTheme)
  // What the book opens with; later changes reach it through setAppearance below.
  const appearanceRef = useRef(appearance)
  useEffect(() => {
    appearanceRef.current = appearance
  })
  const [panel, setPanel] = useState<Panel | null>(null)
  const [selection, setSelection] = useState<TextSelection | null>(null)
  const [dialog, setDialog] = useState<'highlight' | 'erratum' | null>(null)
  const [annotations, setAnnotations] = useState<Annotation[]>([])
  const [notice, setNotice] = useState('')
  const saver = useMemo(
    () =>
      createPositionSaver<PositionUpdate>({
        delayMs: 1000,
        save: (position, keepalive) => savePosition(book.slug, position, keepalive),
        onError: (error) => {
          console.warn(error)
          setNotice('Your place could not be saved just now; it will be as you read on.')
        },
      }),
    [book.slug],
  )

  useEffect(() => {
    const opening = new AbortController()
    let opened: BookViewer | null = null
    let placed = false
    void (async () => {
      const [file, state] = await Promise.all([
        fetchBookFile(book.slug, mode, opening.signal),
        // Without their place and notes the book still opens, at its start.
        owner
          ? fetchReadingState(book.slug, opening.signal).catch((error: unknown) => {
              if (opening.signal.aborted) throw error
              console.warn(error)
              setNotice('Your place and notes could not be loaded just now; reload the page to try again.')
              return null
            })
          : null,
        // foliate-js's modules come beside the book, not one after another once it is here.
        BookViewer.preload(),
      ])
      if (opening.signal.aborted || !containerRef.current) return
      opened = await BookViewer.open(containerRef.current, file, appearanceRef.current, {
        onRelocate: (where) => {
          setLocation(where)
          // Only where the reader went: opening at their saved place is not a new one.
          if (owner && placed)
            saver.push({
              edition: book.edition,
              cfi: where.cfi,
              fraction: where.fraction,
              quote: where.quote,
              at: new Date().toISOString(),
            })
        },
        onSelection: setSelection,
        onPageKey: (direction) => void opened?.turn(direction),
        onShowHighlight: () => setPanel('notes'),
        onCopied: (copied) => setNotice(copied ? 'Listing copied.' : 'The listing could not be copied.'),
        frameTitle: `${book.title}: the book’s page`,
      })
      if (opening.signal.aborted) return opened.close()
      setAnnotations(state?.annotations ?? [])
      const position = state?.position
      // A place in another edition is found again by its words, else by how far into the book it was.
      const placeInOtherEdition =
        position && position.edition !== book.edition && position.quote
          ? await opened.findQuote(position.quote).catch((error: unknown) => {
              console.warn(error)
              return null
            })
          : null
      if (opening.signal.aborted) return opened.close()
      if (position?.edition === book.edition) await opened.startAt(position.cfi)
      else if (placeInOtherEdition) await opened.startAt(placeInOtherEdition)
      else await opened.start({ fraction: position?.fraction })
      placed = true
      setViewer(opened)
      // Bookmarks and highlights of an older edition move to this one where their text is found again; the
      // others stay listed with their edition.
      for (const note of state?.annotations ?? []) {
        if (note.edition === book.edition || opening.signal.aborted) continue
        try {
          const cfi = await opened.findQuote(note.quote)
          if (!cfi || opening.signal.aborted) continue
          const moved = await moveAnnotation(book.slug, note.id, { edition: book.edition, cfi })
          setAnnotations((current) => current.map((item) => (item.id === moved.id ? moved : item)))
        } catch (error) {
          // It stays listed with its edition; the next opening tries again.
          console.warn(error)
        }
      }
    })().catch((error: unknown) => {
      if (opening.signal.aborted) return
      console.warn(error)
      setFailure('The book could not be opened. Please reload the page, or download the book instead.')
    })
    const leave = () => saver.flush()
    addEventListener('pagehide', leave)
    return () => {
      opening.abort()
      removeEventListener('pagehide', leave)
      saver.flush()
      opened?.close()
    }
  }, [book.slug, book.edition, book.title, mode, owner, saver])

  const { theme, fontSize } = appearance
  useEffect(() => viewer?.setAppearance({ theme, fontSize }), [viewer, theme, fontSize])
  useEffect(() => {
    viewer?.showHighlights(
      annotations
        .filter((note) => note.kind === 'highlight' && note.edition === book.edition)
        .map((note) => note.cfi),
    )
  }, [viewer, annotations, book.edition])
  useEffect(() => {
    if (!viewer) return
    const onKey = (event: KeyboardEvent) => {
      const direction = pageKeys[event.key]
      if (
        !direction ||
        event.defaultPrevented ||
        event.altKey ||
        event.ctrlKey ||
        event.metaKey ||
        event.shiftKey
      )
        return
      if ((event.target as Element).closest?.('input, textarea, select, [contenteditable], dialog')) return
      event.preventDefault()
      void viewer.turn(direction)
    }
    addEventListener('keydown', onKey)
    return () => removeEventListener('keydown', onKey)
  }, [viewer])

  async function save(kind: Annotation['kind'], cfi: string, quote: string, note: string) {
    try {
      const saved = await createAnnotation(book.slug, { kind, edition: book.edition, cfi, quote, note })
      setAnnotations((current) => [...current, saved])
      setNotice(kind === 'bookmark' ? 'Bookmark added.' : 'Highlight saved.')
      return true
    } catch (error) {
      console.warn(error)
      setNotice(`The ${kind} could not be saved. Please try again.`)
      return false
    }
  }
  async function highlight(note: string) {
    if (!selection) return false
    const saved = await save('highlight', selection.cfi, selection.text, note)
    if (saved) viewer?.clearSelection()
    return saved
  }
  const goTo = (target: string) => {
    void viewer?.goTo(target)
    // On a phone the panel covers the page: it closes to show where the reader went.
    if (matchMedia('(max-width: 767px)').matches) setPanel(null)
  }
  const togglePanel = (next: Panel) => setPanel((current) => (current === next ? null : next))
  const percent = Math.round((location?.fraction ?? 0) * 100)
  const palette = readerPalettes[appearance.theme]

  return (
    <section
      aria-labelledby="reader-title"
      className="flex h-[calc(100dvh-10.5rem)] min-h-[28rem] sm:h-[calc(100dvh-7rem)] flex-col"
    >
      <ReaderToolbar
        title={book.title}
        owner={owner}
        ready={viewer !== null}
        panel={panel}
        onPanel={togglePanel}
        canBookmark={location !== null}
        onBookmark={() => location && void save('bookmark', location.cfi, location.quote, '')}
        appearance={appearance}
        onAppearance={setAppearance}
      />
      <div className="relative flex min-h-0 flex-1">
        {panel && viewer ? (
          <ReaderPanel id="reader-panel" title={panelTitles[panel]} onClose={() => setPanel(null)}>
            {panel === 'contents' ? (
              <ContentsList toc={viewer.toc} currentId={location?.tocItem?.id} onGo={goTo} />
            ) : panel === 'search' ? (
              <BookSearch viewer={viewer} onGo={goTo} />
            ) : (
              <NotesList
                annotations={annotations}
                edition={book.edition}
                exportUrl={urls.markdown}
                onGo={(annotation) => goTo(annotation.cfi)}
                onSaveNote={async (annotation, note) => {
                  try {
                    const saved = await updateAnnotationNote(book.slug, annotation.id, note)
                    setAnnotations((current) => current.map((item) => (item.id === saved.id ? saved : item)))
                    setNotice('Note saved.')
                    return true
                  } catch (error) {
                    console.warn(error)
                    setNotice('The note could not be saved. Please try again.')
                    return false
                  }
                }}
                onDelete={(annotation) =>
                  void deleteAnnotation(book.slug, annotation.id).then(
                    () => {
                      setAnnotations((current) => current.filter((item) => item.id !== annotation.id))
                      setNotice(`${annotation.kind === 'bookmark' ? 'Bookmark' : 'Highlight'} deleted.`)
                    },
                    (error: unknown) => {
                      console.warn(error)
                      setNotice('It could not be deleted. Please try again.')
                    },
                  )
                }
              />
            )}
          </ReaderPanel>
        ) : null}
        {/* foliate-js's view goes in here: React renders nothing inside it. */}
        <div
          ref={containerRef}
          data-reader-theme={appearance.theme}
          className={`min-w-0 flex-1 ${palette.scheme === 'dark' ? 'scheme-dark' : 'scheme-light'} ${bookBackgrounds[appearance.theme]}`}
        />
        {firstPage && !viewer && !failure ? (
          <BookFirstPage page={firstPage} theme={appearance.theme} fontSize={appearance.fontSize} />
        ) : null}
        {viewer && !failure ? null : (
          <p
            role={failure ? 'alert' : 'status'}
            className={
              firstPage && !failure
                ? 'sr-only'
                : `absolute inset-x-0 top-6 mx-auto max-w-md rounded-md p-4 text-center ${failure ? 'bg-white text-red-700' : ''}`
            }
          >
            {failure || 'Opening the book…'}
          </p>
        )}
      </div>
      {selection && !dialog ? (
        <div
          role="region"
          aria-label="Selected text"
          className="flex flex-wrap items-center gap-2 border-t border-slate-200 px-3 py-2 text-sm dark:border-gray-700"
        >
          <span className="mr-auto max-w-full truncate italic">“{shortQuote(selection.text, 80)}”</span>
          {owner ? (
            <>
              <button type="button" className={chromeButton} onClick={() => void highlight('')}>
                Highlight
              </button>
              <button type="button" className={chromeButton} onClick={() => setDialog('highlight')}>
                Highlight with a note
              </button>
            </>
          ) : null}
          <button type="button" className={chromeButton} onClick={() => setDialog('erratum')}>
            Report an erratum
          </button>
        </div>
      ) : null}
      <PageBar
        ready={viewer !== null}
        chapter={location?.tocItem?.label ?? ''}
        percent={percent}
        onTurn={(direction) => void viewer?.turn(direction)}
      />
      <p role="status" className="px-3 text-center text-sm empty:hidden">
        {notice}
      </p>
      {dialog === 'highlight' && selection ? (
        <HighlightDialog selection={selection} onSave={highlight} onClose={() => setDialog(null)} />
      ) : null}
      {dialog === 'erratum' && selection ? (
        <ErratumDialog
          slug={book.slug}
          selection={selection}
          onClose={() => setDialog(null)}
          onSent={() => {
            setDialog(null)
            viewer?.clearSelection()
            setNotice('Thank you: your erratum was sent to the author.')
          }}
        />
      ) : null}
    </section>
  )
}

/** The page's colour around the book's text, the same as the text's own (section-styles.ts). */
const bookBackgrounds = {
  light: 'bg-white',
  dark: 'bg-slate-800',
  sepia: 'bg-[#f4ecd8]',
} as const
