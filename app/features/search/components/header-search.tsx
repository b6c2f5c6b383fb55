import { useHydrated } from '#app/components/use-hydrated.ts'
import { lazy, Suspense, useEffect, useRef, useState } from 'react'
import { useLocation } from 'react-router'
import { SearchIcon } from '#app/components/ui/icons.tsx'
import { usePopover } from '#app/components/ui/use-popover.ts'
import { SEARCH_PATH } from '../search-query.ts'

const loadPanel = () => import('./header-search-panel.tsx')
const HeaderSearchPanel = lazy(loadPanel)

/**
 * The header's search icon. Without JavaScript it submits an empty GET form to /search, which shows the
 * search box. With JavaScript it toggles the box in a native popover under the icon: the browser closes it
 * on Escape or a click outside and returns focus to the button; opening moves focus into the box.
 *
 * The box (a combobox with suggestions, the larger part of the header's code) is not part of the page: its
 * module is fetched when a pointer comes over the button, or the button gets focus, i.e. before the click or
 * Enter that opens it (docs/decisions/023). Every page paints and hydrates without it.
 */
export function HeaderSearch({ buttonClassName }: { buttonClassName: string }) {
  const hydrated = useHydrated()
  const inputRef = useRef<HTMLInputElement>(null)
  // Focus into the box, its earlier text selected: typing replaces it, arrows keep it.
  const {
    id: panelId,
    ref: panelRef,
    open,
  } = usePopover<HTMLDivElement>('search', () => {
    inputRef.current?.focus()
    inputRef.current?.select()
  })
  const location = useLocation()
  const [wanted, setWanted] = useState(false)
  const want = () => {
    if (wanted) return
    void loadPanel()
    setWanted(true)
  }

  // A search submitted or a book chosen: the box has done its job once the page changes.
  useEffect(() => {
    const panel = panelRef.current
    if (panel?.matches(':popover-open')) panel.hidePopover()
  }, [location.key, panelRef])

  return (
    <>
      <form method="get" action={SEARCH_PATH} className="contents">
        <button
          type={hydrated ? 'button' : 'submit'}
          className={buttonClassName}
          aria-label="Search"
          popoverTarget={hydrated ? panelId : undefined}
          aria-expanded={hydrated ? open : undefined}
          aria-controls={hydrated ? panelId : undefined}
          onPointerEnter={want}
          onPointerDown={want}
          onFocus={want}
        >
          <SearchIcon />
        </button>
      </form>
      <div
        ref={panelRef}
        id={panelId}
        popover="auto"
        // Under the icon, right edges aligned; on a phone (icons wrapped to a second row) across the screen.
        className="m-0 mt-2 w-[calc(100vw-2rem)] justify-self-center overflow-visible rounded-lg border border-slate-200 bg-slate-50 p-3 text-slate-900 shadow-lg [position-area:bottom_span-all] [position-try-fallbacks:flip-block] [inset:auto] sm:w-[26rem] sm:justify-self-end sm:[position-area:bottom_span-left] dark:border-gray-700 dark:bg-gray-900 dark:text-slate-100"
      >
        <Suspense>{wanted || open ? <HeaderSearchPanel inputRef={inputRef} /> : null}</Suspense>
      </div>
    </>
  )
}
