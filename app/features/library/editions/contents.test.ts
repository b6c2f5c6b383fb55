import { expect, test } from 'vitest'
import { formatReadingTime, readContents, readingMinutes } from './contents.ts'
import { parseManuscript } from './manuscript.ts'

test('chapters and their sections make the table of contents; every word is counted', () => {
  const manuscript = parseManuscript(
    [
      '# Getting `Started`',
      '',
      'Four words of prose.',
      '',
      '## First steps',
      '- one item',
      '```ts',
      'const x = 1',
      '```',
      '',
      '# Two',
      '',
      '## A',
      '',
      'Text.',
      '',
      '## B',
      '',
      'More text.',
    ].join('\n'),
  )
  expect(readContents(manuscript)).toEqual({
    chapters: [
      { title: 'Getting Started', sections: ['First steps'] },
      { title: 'Two', sections: ['A', 'B'] },
    ],
    // 2 + 4 + 2 + 2 + 4 | 1 + 1 + 1 + 1 + 2
    wordCount: 20,
  })
})

test('reading time at 250 words a minute, at least a minute, in hours and minutes', () => {
  expect(readingMinutes(0)).toBe(1)
  expect(readingMinutes(2_000)).toBe(8)
  expect(readingMinutes(15_000)).toBe(60)
  expect(formatReadingTime(8)).toBe('8 min')
  expect(formatReadingTime(60)).toBe('1 h')
  expect(formatReadingTime(155)).toBe('2 h 35 min')
})
