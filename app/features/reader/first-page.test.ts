import { describe, expect, test } from 'vitest'
import { parseManuscript } from '#app/features/library/editions/manuscript.ts'
import { findOpening, firstPageOf } from './first-page.ts'

const manuscript = parseManuscript(`# Getting started

Django is a web framework with \`manage.py\` commands.
It ships with an admin.

## Installing

- Python 3.10
- a virtual environment

\`\`\`sh
pip install django
\`\`\`

# Models

Models map classes to tables, and each model is a class that lives in an app's models module.

Migrations follow the models.
`)

describe('the reader’s first screen', () => {
  test('opens at the first chapter’s heading without a saved place, as foliate-js does', () => {
    const page = firstPageOf(manuscript, findOpening(manuscript, null)!)!
    expect(page.chapter).toBe(0)
    expect(page.blocks[0]).toEqual({
      type: 'chapter-heading',
      prefix: 'Chapter 1 — ',
      spans: [{ code: false, text: 'Getting started' }],
    })
    expect(page.blocks.map((block) => block.type)).toEqual([
      'chapter-heading',
      'paragraph',
      'heading',
      'list',
      'code',
    ])
    expect(page.blocks[1]).toMatchObject({
      spans: [
        { code: false, text: 'Django is a web framework with ' },
        { code: true, text: 'manage.py' },
        { code: false, text: expect.stringContaining('commands.') },
      ],
    })
  })

  test('opens inside the paragraph a saved place quotes, from its first word', () => {
    const opening = findOpening(manuscript, 'each model is a class that lives in an app’s'.replace('’', "'"))!
    expect(opening).toMatchObject({ chapter: 1, block: 0 })
    const page = firstPageOf(manuscript, opening)!
    expect(page.blocks[0]).toEqual({
      type: 'paragraph',
      spans: [{ code: false, text: "each model is a class that lives in an app's models module." }],
      continued: true,
    })
    expect(page.blocks[1]).toMatchObject({
      type: 'paragraph',
      spans: [{ text: 'Migrations follow the models.' }],
    })
  })

  test('a quote that runs from one block into the next, or begins a chapter, is found', () => {
    // A list is shown whole (only a paragraph begins mid-way on the server's first screen).
    expect(findOpening(manuscript, 'a virtual environment pip install django')).toEqual({
      chapter: 0,
      block: 2,
      skip: 0,
    })
    expect(findOpening(manuscript, 'Chapter 2 — Models Models map classes')).toEqual({
      chapter: 1,
      block: -1,
      skip: 0,
    })
  })

  test('a quote not in the book (another edition’s, the title page’s) opens nothing on the server', () => {
    expect(findOpening(manuscript, 'Words that this edition does not have anywhere')).toBeNull()
    expect(findOpening(manuscript, 'Django')).toBeNull()
  })
})
