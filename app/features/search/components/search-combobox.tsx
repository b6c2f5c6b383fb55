import { useEffect, useId, useState, type FocusEvent, type KeyboardEvent, type Ref } from 'react'
import { Link, useNavigate } from 'react-router'
import {
  MAX_QUERY_LENGTH,
  normalizeQuery,
  SUGGEST_PATH,
  SUGGESTION_LIMIT,
  type Suggestion,
  type SuggestResponse,
} from '../search-query.ts'

const DEBOUNCE_MS = 150

/**
 * The search box: a text input named `q` for a GET form to /search (so it works without JavaScript), and
 * with JavaScript an editable combobox with a list of suggestions (the WAI-ARIA APG combobox pattern, list
 * autocomplete): typing fetches up to five books from /search/suggest after a 150 ms pause; ArrowDown and
 * ArrowUp move through them, Enter opens the highlighted book (or submits the search when none is), Escape
 * closes the list. Focus stays in the input; the highlighted option is aria-activedescendant.
 */
export function SearchCombobox({
  label,
  defaultValue = '',
  autoFocus = false,
  inputRef,
  onChoose,
}: {
  /** The input's accessible name. */
  label: string
  defaultValue?: string
  autoFocus?: boolean
  inputRef?: Ref<HTMLInputElement>
  /** Called when a suggestion is chosen, before navigating to its book. */
  onChoose?: () => void
}) {
  const id = useId()
  const inputId = `${id}-input`
  const listboxId = `${id}-listbox`
  const optionId = (index: number) => `${id}-option-${index}`
  const navigate = useNavigate()
  const [value, setValue] = useState(defaultValue)
  // Whether the visitor wants the popup: typing opens it; Escape, Tab, leaving and choosing close it.
  const [expanded, setExpanded] = useState(false)
  const [results, setResults] = useState<{ query: string; suggestions: Suggestion[] } | null>(null)
  const [active, setActive] = useState(-1)
  const query = normalizeQuery(value)

  useEffect(() => {
    if (!expanded || !query) return
    const controller = new AbortController()
    const timer = setTimeout(async () => {
      try {
        const response = await fetch(`${SUGGEST_PATH}?${new URLSearchParams({ q: query })}`, {
          signal: controller.signal,
          headers: { Accept: 'application/json' },
        })
        if (!response.ok) throw new Error(`HTTP ${response.status}`)
        const data = (await response.json()) as Partial<SuggestResponse>
        setResults({
          query,
          suggestions: Array.isArray(data.suggestions) ? data.suggestions.slice(0, SUGGESTION_LIMIT) : [],
        })
        setActive(-1)
      } catch (error) {
        // Suggestions only help: without them the box still searches. Say why in the console.
        if (!controller.signal.aborted) console.warn('Search suggestions are unavailable:', error)
      }
    }, DEBOUNCE_MS)
    return () => {
      clearTimeout(timer)
      controller.abort()
    }
  }, [expanded, query])

  // Text typed into the server-rendered box before React took it over (the scripts start once the page has
  // loaded, decision 023) is kept: the box carries on from it, suggestions included.
  useEffect(() => {
    const input = document.getElementById(inputId)
    if (!(input instanceof HTMLInputElement) || input.value === defaultValue) return
    // The DOM is the outside source here, read once at hydration; no render can know it before.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setValue(input.value)
    if (document.activeElement === input) setExpanded(true)
  }, [inputId, defaultValue])

  // The last answer stays on screen while the next one is on its way, as long as there is a query.
  const suggestions = query && results ? results.suggestions : []
  const listOpen = expanded && suggestions.length > 0
  const nothingFound = expanded && results !== null && results.query === query && suggestions.length === 0
  const highlighted = listOpen && active >= 0 ? suggestions[active] : undefined

  function close() {
    setExpanded(false)
    setActive(-1)
  }

  function choose(suggestion: Suggestion) {
    close()
    onChoose?.()
    void navigate(`/books/${suggestion.slug}`)
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    const count = suggestions.length
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp': {
        if (!query) return
        event.preventDefault()
        if (!expanded) setExpanded(true)
        if (count === 0) return
        const down = event.key === 'ArrowDown'
        if (!listOpen || active < 0) setActive(down ? 0 : count - 1)
        else setActive(down ? (active + 1) % count : (active - 1 + count) % count)
        return
      }
      case 'Enter':
        if (highlighted) {
          event.preventDefault()
          choose(highlighted)
        } else {
          close() // and the form submits the search
        }
        return
      case 'Escape':
        // The first Escape closes the list; the next one reaches whatever holds the box (the header's panel).
        if (listOpen || nothingFound) {
          event.preventDefault()
          event.stopPropagation()
          close()
        }
        return
      case 'Tab':
        // Into the 'no results' message's link, the popup stays; away from a list, it closes.
        if (listOpen) close()
        return
    }
  }

  function onBlur(event: FocusEvent<HTMLDivElement>) {
    if (!event.currentTarget.contains(event.relatedTarget as Node | null)) close()
  }

  return (
    <div className="relative min-w-0 flex-1" onBlur={onBlur}>
      <label htmlFor={inputId} className="sr-only">
        {label}
      </label>
      <input
        ref={inputRef}
        id={inputId}
        type="text"
        name="q"
        value={value}
        onChange={(event) => {
          setValue(event.target.value)
          setExpanded(true)
          setActive(-1)
        }}
        onKeyDown={onKeyDown}
        autoFocus={autoFocus}
        placeholder="search"
        maxLength={MAX_QUERY_LENGTH}
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
        enterKeyHint="search"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={listOpen}
        aria-controls={listboxId}
        aria-activedescendant={highlighted ? optionId(active) : undefined}
        className="w-full rounded-lg border border-slate-300 bg-white px-4 py-2 text-base text-slate-900 placeholder:text-slate-500 dark:border-gray-600 dark:bg-gray-800 dark:text-slate-100 dark:placeholder:text-slate-400"
      />
      <ul
        id={listboxId}
        role="listbox"
        aria-label="Suggested books"
        hidden={!listOpen}
        className="absolute inset-x-0 top-full z-20 mt-1 overflow-hidden rounded-lg border border-slate-200 bg-white py-1 text-left shadow-lg dark:border-gray-700 dark:bg-gray-900"
      >
        {suggestions.map((suggestion, index) => (
          <li
            key={suggestion.slug}
            id={optionId(index)}
            role="option"
            aria-selected={index === active}
            // Keep focus in the input: a click chooses without blurring it first.
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => choose(suggestion)}
            onMouseMove={() => setActive(index)}
            className={`cursor-pointer px-4 py-2 ${
              index === active ? 'bg-blue-700 text-white' : 'text-slate-900 dark:text-slate-100'
            }`}
          >
            <span className="block font-medium">{suggestion.title}</span>
            <span
              className={`block text-sm ${index === active ? 'text-blue-50' : 'text-slate-600 dark:text-slate-300'}`}
            >
              {suggestion.author}
            </span>
          </li>
        ))}
      </ul>
      {nothingFound ? (
        <div className="absolute inset-x-0 top-full z-20 mt-1 rounded-lg border border-slate-200 bg-white px-4 py-3 text-left shadow-lg dark:border-gray-700 dark:bg-gray-900">
          <p className="text-slate-700 dark:text-slate-200">No books match “{query}”.</p>
          <Link
            to="/AllBooks"
            onClick={close}
            className="mt-1 inline-block font-medium text-blue-700 underline underline-offset-2 dark:text-sky-300"
          >
            Browse all eBooks
          </Link>
        </div>
      ) : null}
      <p role="status" className="sr-only">
        {listOpen
          ? `${suggestions.length} suggested ${suggestions.length === 1 ? 'book' : 'books'}; arrow keys to choose`
          : nothingFound
            ? `No books match ${query}`
            : ''}
      </p>
    </div>
  )
}
