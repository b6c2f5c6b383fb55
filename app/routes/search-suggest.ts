// Placeholder until the search work lands (issue 3).
export function loader() {
  return Response.json({ suggestions: [] })
}
