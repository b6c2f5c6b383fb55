// Placeholder until the theme setting lands (issue 3).
export function action() {
  return null
}
