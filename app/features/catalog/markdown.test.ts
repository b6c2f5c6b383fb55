import { describe, expect, test } from 'vitest'
import { parseInline, parseMarkdown, plainText } from './markdown.ts'

describe('inline Markdown', () => {
  test('code, strong, emphasis and links, with unclosed marks left as text', () => {
    expect(parseInline('`a*b` **bold** *em* __b__ _e_ [site](https://example.com/x) [x](/books/y)')).toEqual([
      { type: 'code', text: 'a*b' },
      { type: 'text', text: ' ' },
      { type: 'strong', children: [{ type: 'text', text: 'bold' }] },
      { type: 'text', text: ' ' },
      { type: 'em', children: [{ type: 'text', text: 'em' }] },
      { type: 'text', text: ' ' },
      { type: 'strong', children: [{ type: 'text', text: 'b' }] },
      { type: 'text', text: ' ' },
      { type: 'em', children: [{ type: 'text', text: 'e' }] },
      { type: 'text', text: ' ' },
      { type: 'link', href: 'https://example.com/x', children: [{ type: 'text', text: 'site' }] },
      { type: 'text', text: ' ' },
      { type: 'link', href: '/books/y', children: [{ type: 'text', text: 'x' }] },
    ])
    expect(parseInline('a * b *c * [x] (y) `open')).toEqual([
      { type: 'text', text: 'a * b *c * [x] (y) `open' },
    ])
    expect(parseInline('**a *b* c**')).toEqual([
      {
        type: 'strong',
        children: [
          { type: 'text', text: 'a ' },
          { type: 'em', children: [{ type: 'text', text: 'b' }] },
          { type: 'text', text: ' c' },
        ],
      },
    ])
  })

  test('a link to anything but http(s), mailto or this site keeps its words and loses its target', () => {
    expect(parseInline('[click](javascript:alert(1)) [x]( //evil.example )')).toEqual([
      { type: 'text', text: 'click' },
      { type: 'text', text: ') ' },
      { type: 'text', text: 'x' },
    ])
    expect(parseInline('[a]( /b )')).toEqual([
      { type: 'link', href: '/b', children: [{ type: 'text', text: 'a' }] },
    ])
  })

  test('10,000 of any mark is parsed as text', () => {
    for (const mark of ['[', '*', '_', '`']) {
      const text = mark.repeat(10_000)
      expect(plainText(text).length, mark).toBeGreaterThan(0)
    }
    expect(parseMarkdown('['.repeat(10_000))).toEqual([
      { type: 'paragraph', children: [{ type: 'text', text: '['.repeat(10_000) }] },
    ])
  })

  // Time bound, read as a ratio so that a busy machine cannot fail it: sixteen times the text must cost about sixteen
  // times as much (linear), not 256 (quadratic: 10,000 '[' once took ~150 ms of a book page's render). The bound, 64,
  // sits a factor of four from both, so a noisy neighbour cannot fail a linear parser and cannot pass a quadratic one
  // (with four times the text and a bound of 9, a busy CI machine once read 9.3).
  test.each([
    ['[', (n: number) => '['.repeat(n)],
    ['[a', (n: number) => '[a'.repeat(n / 2)],
    ['[x](', (n: number) => '[x]('.repeat(n / 4)],
    ['_a ', (n: number) => '_a '.repeat(n / 3)],
    ['*', (n: number) => '*'.repeat(n)],
    ['**a', (n: number) => '**a'.repeat(n / 3)],
  ])('parsing %s repeated grows linearly with its length', (_, make) => {
    // The fastest of several interleaved runs of each size: what the parse costs, not what the machine was doing.
    const small = make(3_000)
    const large = make(48_000)
    const fastest = { small: Infinity, large: Infinity }
    for (let run = 0; run < 12; run++) {
      for (const [size, text] of [
        ['small', small],
        ['large', large],
      ] as const) {
        const started = performance.now()
        parseMarkdown(text)
        fastest[size] = Math.min(fastest[size], performance.now() - started)
      }
    }
    const ratio = fastest.large / Math.max(fastest.small, 0.02)
    expect(ratio).toBeLessThan(64)
  })
})
