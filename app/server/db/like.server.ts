/** `text` for a LIKE pattern: `%`, `_` and `\` typed by a person are looked for as such (PostgreSQL's escape is `\`). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`)
}

/** A LIKE pattern for values that contain `text` anywhere. */
export function containing(text: string): string {
  return `%${escapeLike(text)}%`
}
