/** The dashboard's periods: the last 7, 30 or 90 days (today included), or a custom from–to. */
export const RANGE_CHOICES = ['7', '30', '90', 'custom'] as const
export type RangeChoice = (typeof RANGE_CHOICES)[number]
