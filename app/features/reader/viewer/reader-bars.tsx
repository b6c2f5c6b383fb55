import type { Appearance } from './book-viewer.ts'
import { chromeButton, progressBar } from './reader-styles.ts'
import { readerThemeLabels, readerThemes, stepFontSize, type ReaderTheme } from './section-styles.ts'

/** The book's text size (smaller, larger) and theme (light, dark, sepia). */
export function AppearanceControls({
  appearance,
  onChange,
  disabled = false,
}: {
  appearance: Appearance
  onChange: (appearance: Appearance) => void
  disabled?: boolean
}) {
  return (
    <>
      <div role="group" aria-label="Text size" className="flex items-center gap-1">
        <button
          type="button"
          className={chromeButton}
          aria-label="Smaller text"
          disabled={disabled}
          onClick={() => onChange({ ...appearance, fontSize: stepFontSize(appearance.fontSize, -1) })}
        >
          A−
        </button>
        <span className="w-12 text-center text-sm tabular-nums">{appearance.fontSize}%</span>
        <button
          type="button"
          className={chromeButton}
          aria-label="Larger text"
          disabled={disabled}
          onClick={() => onChange({ ...appearance, fontSize: stepFontSize(appearance.fontSize, 1) })}
        >
          A+
        </button>
      </div>
      <label className="flex items-center gap-2 text-sm font-medium">
        Theme
        <select
          className="rounded-md border border-slate-400 bg-white px-2 py-1.5 text-slate-900 dark:border-gray-500 dark:bg-gray-900 dark:text-slate-100"
          value={appearance.theme}
          disabled={disabled}
          onChange={(event) => onChange({ ...appearance, theme: event.currentTarget.value as ReaderTheme })}
        >
          {readerThemes.map((theme) => (
            <option key={theme} value={theme}>
              {readerThemeLabels[theme]}
            </option>
          ))}
        </select>
      </label>
    </>
  )
}

export type ReaderPanelName = 'contents' | 'search' | 'notes'
export const panelTitles: Record<ReaderPanelName, string> = {
  contents: 'Contents',
  search: 'Search',
  notes: 'Notes',
}

/**
 * Over the book: its title, the panels (contents, search, the owner's notes), a bookmark, text size and theme.
 * The server renders it too, every control disabled until the reader runs (`ready` false, no `onChange`), so the
 * book's page does not move when the reader arrives.
 */
export function ReaderToolbar({
  title,
  owner,
  ready,
  panel = null,
  onPanel,
  canBookmark = false,
  onBookmark,
  appearance,
  onAppearance,
}: {
  title: string
  owner: boolean
  ready: boolean
  panel?: ReaderPanelName | null
  onPanel?: (panel: ReaderPanelName) => void
  canBookmark?: boolean
  onBookmark?: () => void
  appearance: Appearance
  onAppearance?: (appearance: Appearance) => void
}) {
  return (
    <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-3 py-2 dark:border-gray-700">
      <h1 id="reader-title" className="mr-auto min-w-0 truncate text-lg font-semibold">
        {title}
        {owner ? null : <span className="font-normal"> — free sample</span>}
      </h1>
      {(['contents', 'search', ...(owner ? ['notes' as const] : [])] as const).map((name) => (
        <button
          key={name}
          type="button"
          className={chromeButton}
          aria-expanded={panel === name}
          aria-controls={panel === name ? 'reader-panel' : undefined}
          disabled={!ready}
          onClick={() => onPanel?.(name)}
        >
          {panelTitles[name]}
        </button>
      ))}
      {owner ? (
        <button type="button" className={chromeButton} disabled={!canBookmark} onClick={onBookmark}>
          Bookmark this page
        </button>
      ) : null}
      <AppearanceControls
        appearance={appearance}
        onChange={(next) => onAppearance?.(next)}
        disabled={!onAppearance}
      />
    </div>
  )
}

/** Under the book: the previous and next page, and where the reader is (the chapter, how far in). */
export function PageBar({
  ready,
  chapter,
  percent,
  onTurn,
}: {
  ready: boolean
  chapter: string
  percent: number
  onTurn: (direction: 'prev' | 'next') => void
}) {
  return (
    <nav
      aria-label="Pages"
      className="flex items-center gap-3 border-t border-slate-200 px-3 py-2 dark:border-gray-700"
    >
      <button type="button" className={chromeButton} disabled={!ready} onClick={() => onTurn('prev')}>
        ‹ Previous page
      </button>
      <div className="flex min-w-0 flex-1 flex-col items-center gap-1 text-sm">
        {/* Its line kept while there is no chapter yet (the server's first screen): the book's box stays put. */}
        <p className="min-h-5 max-w-full truncate">{chapter}</p>
        <div className="flex w-full max-w-44 items-center justify-center gap-2">
          <progress
            max={100}
            value={percent}
            aria-label="Read so far"
            className={`${progressBar} min-w-0 flex-1`}
          />
          <span className="tabular-nums">{percent}%</span>
        </div>
      </div>
      <button type="button" className={chromeButton} disabled={!ready} onClick={() => onTurn('next')}>
        Next page ›
      </button>
    </nav>
  )
}
