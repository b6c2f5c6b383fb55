/** What the moderation page lists: reported reviews (the default), those a moderator hid, or all. */
export const MODERATION_FILTERS = ['reported', 'hidden', 'all'] as const
export type ModerationFilter = (typeof MODERATION_FILTERS)[number]
