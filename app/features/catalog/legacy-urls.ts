/**
 * The seed app addressed books by their zero-based position in two hard-coded lists. Those URLs are out in
 * the world (bookmarks, links), so they keep pointing at the same books whatever the catalogue becomes.
 */
export const legacyFeaturedSlugs: readonly string[] = [
  'complete-guide-to-backend-development',
  'frontend-fastlane-plan-with-projects',
  'javascript-basics-to-advance',
]

export const legacyAllBooksSlugs: readonly string[] = [
  'basics-to-advanced-in-react',
  'django-framework',
  'the-future-of-design-systems',
  'build-a-blockchain-from-scratch-in-go',
]

/** The index part of a legacy URL: digits, possibly with the space the seed's card link put before them. */
export function parseLegacyIndex(raw: string | undefined): number | undefined {
  const trimmed = raw?.trim() ?? ''
  return /^\d{1,3}$/.test(trimmed) ? Number(trimmed) : undefined
}
