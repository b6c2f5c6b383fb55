import { useEffect, type RefObject } from 'react'
import { Form } from 'react-router'
import { SearchIcon } from '#app/components/ui/icons.tsx'
import { SEARCH_PATH } from '../search-query.ts'
import { SearchCombobox } from './search-combobox.tsx'

/**
 * The header's search form, inside its popover. Loaded only when the visitor reaches for the search button
 * (`HeaderSearch`), not with the page: no page needs it to paint or hydrate.
 */
export default function HeaderSearchPanel({ inputRef }: { inputRef: RefObject<HTMLInputElement | null> }) {
  // Opened before this module arrived: the box takes the focus as soon as it is there.
  useEffect(() => {
    const input = inputRef.current
    if (input?.closest(':popover-open')) input.focus()
  }, [inputRef])

  return (
    <Form method="get" action={SEARCH_PATH} role="search" aria-label="Search books" className="flex gap-2">
      <SearchCombobox label="Search books" inputRef={inputRef} />
      <button
        type="submit"
        aria-label="Submit search"
        className="inline-flex size-10 shrink-0 items-center justify-center rounded-lg bg-blue-700 text-white hover:bg-blue-800"
      >
        <SearchIcon className="size-5" />
      </button>
    </Form>
  )
}
