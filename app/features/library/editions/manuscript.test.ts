import { decodeImageDataUri } from './manuscript-image.ts'
import { describe, expect, test } from 'vitest'
import { chapterLabel, inlineSpans, ManuscriptError, parseManuscript } from './manuscript.ts'

/** A 1×1 PNG. */
const png1x1 =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

test('chapters, sections, multi-line paragraphs, lists and code blocks are parsed', () => {
  const source = [
    '# Getting Started',
    '',
    'A paragraph that spans',
    'two lines with `inline code`.',
    '',
    '## A section',
    '- first item',
    '- second item that',
    '  continues here',
    'A paragraph right after the list.',
    '',
    '```ts',
    '',
    'const x = 1',
    '',
    'console.log(x)',
    '```',
    '',
    '# Café “Quotes” — and…',
    '',
    'Done.',
    '',
  ].join('\n')
  expect(parseManuscript(source)).toEqual({
    chapters: [
      {
        title: 'Getting Started',
        blocks: [
          { type: 'paragraph', text: 'A paragraph that spans two lines with `inline code`.' },
          { type: 'heading', text: 'A section' },
          { type: 'list', items: ['first item', 'second item that continues here'] },
          { type: 'paragraph', text: 'A paragraph right after the list.' },
          { type: 'code', lang: 'ts', lines: ['const x = 1', '', 'console.log(x)'] },
        ],
      },
      { title: 'Café “Quotes” — and…', blocks: [{ type: 'paragraph', text: 'Done.' }] },
    ],
  })
})

test('chapters are numbered by the renderer and inline code is split out', () => {
  const { chapters } = parseManuscript('# Using `useEffect`\n\nText.\n')
  expect(chapterLabel(0, chapters[0]!)).toBe('Chapter 1 — Using useEffect')
  expect(inlineSpans('Call `f()` twice')).toEqual([
    { code: false, text: 'Call ' },
    { code: true, text: 'f()' },
    { code: false, text: ' twice' },
  ])
})

test.each([
  ['text before a chapter', 'Hello\n', 'book.md:1: text before the first chapter'],
  ['a character the PDF fonts lack', '# A\n\nOK\n\nSmile 😀 here\n', 'book.md:5: character "😀" (U+1F600)'],
  [
    'a non-ASCII character in code',
    '# A\n\n```js\nconst s = “x”\n```\n',
    'book.md:4: code may only hold printable ASCII',
  ],
  [
    'a code line over 80 columns',
    `# A\n\n\`\`\`\n${'x'.repeat(81)}\n\`\`\`\n`,
    'book.md:4: code line is 81 characters',
  ],
  ['an unclosed code block', '# A\n\nText\n\n```js\nx\n', 'book.md:5: code block is never closed'],
  ['an unpaired backtick', '# A\n\nSome\n`code here\n', 'book.md:3: unpaired `'],
  ['a third-level heading', '# A\n\n### Deep\n', "book.md:3: only '#' (chapter) and '##'"],
  ['a heading without a space', '# A\n\n##Section\n', "book.md:3: expected '## Title'"],
  ['a numbered list', '# A\n\n1. one\n', 'book.md:3: unsupported Markdown'],
  ['a quote', '# A\n\n> quoted\n', 'book.md:3: unsupported Markdown'],
  ['a tab', '# A\n\n\tindented\n', 'book.md:3: tab character'],
  ['an empty chapter', '# A\n\n# B\n\nText\n', 'book.md:3: chapter "A" has no text'],
  ['no chapters at all', '\n\n', 'book.md:1: no chapters'],
  [
    'an image without alt text',
    '# A\n\nSee below.\n\n![](figures/stack.png)\n',
    'book.md:5: image "figures/stack.png" has no alt text: write ![what the image shows](…)',
  ],
  [
    'an image with blank alt text, inside a paragraph',
    '# A\n\nSee ![ ](a.png) here.\n',
    'book.md:3: image "a.png" has no alt text',
  ],
  [
    'an image inside a paragraph',
    `# A\n\nSee ![A dot](${png1x1}) here.\n`,
    'book.md:3: an image goes on a line of its own',
  ],
  [
    'an image as a file name',
    '# A\n\n![The call stack](a.png)\n',
    'book.md:3: image "a.png": embed the image as a data: URI',
  ],
  ['a GIF', '# A\n\n![A dot](data:image/gif;base64,R0lGODlhAQABAAAAACw=)\n', 'only PNG and JPEG images'],
  ['data that is not a PNG', '# A\n\n![A dot](data:image/png;base64,AAAAAAAA)\n', 'is not a PNG image'],
  ['broken base64', '# A\n\n![A dot](data:image/png;base64,AAAAA)\n', 'not valid base64'],
  [
    'an image over 1 MB',
    `# A\n\n![A dot](data:image/png;base64,${'A'.repeat(1_500_000)})\n`,
    'larger than 1024 KB',
  ],
  ['an alt text of a page', `# A\n\n![${'x'.repeat(301)}](${png1x1})\n`, 'alt text is 301 characters long'],
])('%s is refused with the file and line', (_, source, message) => {
  expect(() => parseManuscript(source, 'book.md')).toThrow(ManuscriptError)
  expect(() => parseManuscript(source, 'book.md')).toThrow(message)
})

describe('images', () => {
  test('a PNG on its own line is a figure with its alt text, caption and size', () => {
    const { chapters } = parseManuscript(
      `# A\n\nText.\n\n![A red dot](${png1x1} "Figure 1: a dot")\n\nMore.\n`,
    )
    const [, figure] = chapters[0]!.blocks
    expect(figure).toMatchObject({
      type: 'image',
      alt: 'A red dot',
      caption: 'Figure 1: a dot',
      image: { mediaType: 'image/png', width: 1, height: 1 },
    })
  })

  test("a JPEG's size is read from its frame header", () => {
    // SOI, an APP0 segment, then SOF0: precision 8, height 300, width 500.
    const bytes = [
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x4a, 0x46, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0x01, 0x2c, 0x01, 0xf4,
      0x01, 0x01, 0x11, 0x00,
    ]
    const image = decodeImageDataUri(`data:image/jpeg;base64,${btoa(String.fromCharCode(...bytes))}`)
    expect(image).toMatchObject({ mediaType: 'image/jpeg', width: 500, height: 300 })
  })
})
