import { useEffect, useId, useRef, useState, type ReactNode } from 'react'
import type { SearchExcerpt, TocItem } from 'foliate-js/view.js'
import { controlClass } from '#app/components/ui/field.tsx'
import type { BookViewer } from './book-viewer.ts'
import { chromeButton, listButton } from './reader-styles.ts'

/** A side panel of the reader (contents, search, notes): a labelled region with its own Close button. */
export function ReaderPanel({
  id,
  title,
  onClose,
  children,
}: {
  id: string
  title: string
  onClose: () => void
  children: ReactNode
}) {
  const headingId = useId()
  return (
    <aside
      id={id}
      aria-labelledby={headingId}
      className="absolute inset-0 z-10 flex flex-col gap-3 overflow-y-auto bg-white p-4 md:static md:w-80 md:shrink-0 md:border-r md:border-slate-200 dark:bg-slate-800 md:dark:border-gray-700"
    >
      <div className="flex items-center justify-between gap-2">
        <h2 id={headingId} className="text-lg font-semibold">
          {title}
        </h2>
        <button type="button" className={chromeButton} onClick={onClose}>
          Close
        </button>
      </div>
      {children}
    </aside>
  )
}

/** The book's table of contents: a list of the chapters and their sections, the current one marked. */
export function ContentsList({
  toc,
  currentId,
  onGo,
}: {
  toc: TocItem[]
  currentId: number | undefined
  onGo: (href: string) => void
}) {
  return (
    <nav aria-label="Table of contents">
      <TocLevel items={toc} currentId={currentId} onGo={onGo} />
    </nav>
  )
}

function TocLevel({
  items,
  currentId,
  onGo,
}: {
  items: TocItem[]
  currentId: number | undefined
  onGo: (href: string) => void
}) {
  return (
    <ol className="flex flex-col gap-0.5 [&_&]:ml-4">
      {items.map((item, index) => (
        <li key={`${item.href}-${index}`}>
          <button
            type="button"
            className={listButton}
            aria-current={item.id !== undefined && item.id === currentId ? 'location' : undefined}
            onClick={() => onGo(item.href)}
          >
            {item.label}
          </button>
          {item.subitems?.length ? (
            <TocLevel items={item.subitems} currentId={currentId} onGo={onGo} />
          ) : null}
        </li>
      ))}
    </ol>
  )
}

type Found = { label: string; matches: { cfi: string; excerpt: SearchExcerpt }[] }

/** Search inside the book: every match, by chapter, each one a way to its page (foliate-js outlines them). */
export function BookSearch({ viewer, onGo }: { viewer: BookViewer; onGo: (cfi: string) => void }) {
  const inputId = useId()
  const [found, setFound] = useState<Found[]>([])
  const [status, setStatus] = useState('')
  const searchRun = useRef(0)
  useEffect(
    () => () => {
      searchRun.current++
      viewer.clearSearch()
    },
    [viewer],
  )
  async function search(query: string) {
    const run = ++searchRun.current
    setFound([])
    if (!query.trim()) return setStatus('')
    setStatus('Searching…')
    const groups: Found[] = []
    for await (const result of viewer.search(query.trim())) {
      if (run !== searchRun.current) return
      if (result === 'done') break
      if ('subitems' in result) {
        groups.push({ label: result.label, matches: result.subitems })
        setFound([...groups])
      }
    }
    const count = groups.reduce((total, group) => total + group.matches.length, 0)
    setStatus(count === 0 ? `No results for “${query.trim()}”.` : `${count} result${count === 1 ? '' : 's'}.`)
  }
  return (
    <>
      <form
        role="search"
        className="flex flex-col gap-2"
        onSubmit={(event) => {
          event.preventDefault()
          void search(new FormData(event.currentTarget).get('q')?.toString() ?? '')
        }}
      >
        <label htmlFor={inputId} className="text-sm font-medium">
          Search in this book
        </label>
        <div className="flex gap-2">
          <input id={inputId} name="q" type="search" className={`${controlClass} min-w-0 flex-1`} />
          <button type="submit" className={chromeButton}>
            Search
          </button>
        </div>
      </form>
      <p role="status" className="text-sm text-slate-700 dark:text-slate-300">
        {status}
      </p>
      {found.map((group, groupIndex) => (
        // Not a labelled region: several sections of a book may share one label of its contents.
        <div key={groupIndex}>
          <h3 className="text-sm font-semibold">{group.label}</h3>
          <ol className="flex flex-col gap-1">
            {group.matches.map((match) => (
              <li key={match.cfi}>
                <button type="button" className={listButton} onClick={() => onGo(match.cfi)}>
                  …{match.excerpt.pre}
                  <mark className="bg-yellow-200 text-slate-900">{match.excerpt.match}</mark>
                  {match.excerpt.post}…
                </button>
              </li>
            ))}
          </ol>
        </div>
      ))}
    </>
  )
}
