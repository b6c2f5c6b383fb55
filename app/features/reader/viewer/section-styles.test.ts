import { expect, test } from 'vitest'
import { FONT_SIZES, sectionStyles, shortQuote, stepFontSize } from './section-styles.ts'

test('text sizes step along the scale and stop at its ends', () => {
  expect(stepFontSize(100, 1)).toBe(110)
  expect(stepFontSize(100, -1)).toBe(90)
  expect(stepFontSize(FONT_SIZES[0], -1)).toBe(FONT_SIZES[0])
  expect(stepFontSize(FONT_SIZES.at(-1)!, 1)).toBe(FONT_SIZES.at(-1))
  // A size saved by an older scale lands on the nearest step.
  expect(stepFontSize(105, 1)).toBe(120)
})

test('listings keep their lines and scroll sideways in every theme', () => {
  for (const theme of ['light', 'dark', 'sepia'] as const) {
    const css = sectionStyles({ theme, fontSize: 120 })
    expect(css).toMatch(/pre \{[^}]*white-space: pre !important/)
    expect(css).toMatch(/pre \{[^}]*overflow: auto !important/)
    expect(css).toContain('font-size: 120% !important')
  }
})

test('a quote is the text on one line, cut without an ellipsis (the server searches for it)', () => {
  expect(shortQuote('  Chapter 1\n\n  Getting   started ', 120)).toBe('Chapter 1 Getting started')
  expect(shortQuote('a'.repeat(300), 120)).toHaveLength(120)
})
