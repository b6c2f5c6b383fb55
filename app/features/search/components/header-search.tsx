import { SearchIcon } from '#app/components/ui/icons.tsx'

// Placeholder until the search work lands (issue 3).
export function HeaderSearch({ buttonClassName }: { buttonClassName: string }) {
  return (
    <button type="button" className={buttonClassName} aria-label="Search">
      <SearchIcon />
    </button>
  )
}
