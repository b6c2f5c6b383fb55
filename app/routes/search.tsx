// Placeholder until the search work lands (issue 3).
export default function Search() {
  return null
}
