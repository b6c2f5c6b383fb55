import { kebabSlug } from './slug.ts'

/** The slug of a topic's page from its name: 'Systems Programming' → 'systems-programming', 'C++' → 'c'. */
export function topicSlug(name: string): string {
  return kebabSlug(name, 60) || 'topic'
}

/**
 * Topic names as typed in the book form ('systems programming, Rust'): comma-separated, spaces collapsed, a
 * name repeated in another case kept once, in the order typed.
 */
export function splitTopicNames(typed: string): string[] {
  const seen = new Set<string>()
  const names: string[] = []
  for (const part of typed.split(',')) {
    const name = part.replace(/\s+/g, ' ').trim()
    if (!name || seen.has(name.toLowerCase())) continue
    seen.add(name.toLowerCase())
    names.push(name)
  }
  return names
}
