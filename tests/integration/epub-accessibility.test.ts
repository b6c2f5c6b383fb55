import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import JSZip from 'jszip'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { seedBooks } from '#app/features/catalog/seed-books.ts'
import { manuscriptDir } from '#app/features/library/editions/build-editions.server.ts'
import { parseManuscript } from '#app/features/library/editions/manuscript.ts'
import { renderBookEpub } from '#app/features/library/editions/render-epub.server.ts'
import { renderBookPdf } from '#app/features/library/editions/render-pdf.server.ts'
import { stampEpub } from '#app/features/library/editions/stamp.server.ts'
import { findProjectRoot } from '#app/server/project-root.server.ts'

/**
 * Issue 29's accessible EPUBs: every seed book's EPUB, its free sample and a stamped copy pass Ace by DAISY with
 * no violation, state their accessibility in the package metadata, and list the PDF edition's pages where the
 * PDF's pages start. (epubcheck checks the same files in editions.test.ts.)
 */

const run = promisify(execFile)
const root = findProjectRoot()
const chromium = process.env.PUPPETEER_EXECUTABLE_PATH ?? '/usr/bin/chromium'
const buyer = { email: 'reader@example.com', orderNumber: 'CB-29' }

const books = seedBooks.filter((book) => fs.existsSync(path.join(manuscriptDir(), `${book.slug}.md`)))
const kinds = ['book', 'sample', 'stamped'] as const
type Kind = (typeof kinds)[number]
type Built = { epubs: Record<Kind, Uint8Array>; pdf: Uint8Array; samplePdf: Uint8Array }

let tempDir: string
beforeAll(() => {
  if (!fs.existsSync(chromium))
    throw new Error(`Ace needs Chromium at ${chromium} (apt-get install chromium)`)
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-a11y-'))
})
afterAll(() => {
  if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true })
})

const builds = new Map<string, Promise<Built>>()
function build(book: (typeof books)[number]): Promise<Built> {
  let built = builds.get(book.slug)
  if (!built) {
    built = (async () => {
      const manuscript = parseManuscript(
        fs.readFileSync(path.join(manuscriptDir(), `${book.slug}.md`), 'utf8'),
      )
      // As the store renders them: with the cover it shows.
      const cover = {
        bytes: fs.readFileSync(path.join(root, 'public', book.coverPath)),
        mediaType: 'image/svg+xml' as const,
      }
      const epub = await renderBookEpub(book, manuscript, { cover })
      return {
        epubs: {
          book: epub,
          sample: await renderBookEpub(book, manuscript, { cover, sampleOnly: true }),
          stamped: await stampEpub(epub, buyer),
        },
        pdf: await renderBookPdf(book, manuscript),
        samplePdf: await renderBookPdf(book, manuscript, { sampleOnly: true }),
      }
    })()
    builds.set(book.slug, built)
  }
  return built
}

describe.each(books)('$slug', (book) => {
  test.concurrent.each(kinds)(
    'the %s EPUB passes Ace by DAISY with no violations',
    async (kind) => {
      const { epubs } = await build(book)
      const failures = await aceFailures(`${book.slug}-${kind}`, epubs[kind])
      expect(failures).toEqual([])
    },
    300_000,
  )

  test.concurrent.each(kinds)('the %s EPUB states its accessibility in its package', async (kind) => {
    const { epubs } = await build(book)
    const opf = await readEntry(epubs[kind], 'OEBPS/content.opf')
    const values = (property: string) =>
      [...opf.matchAll(new RegExp(`<meta property="${property}"[^>]*>([^<]*)</meta>`, 'g'))].map((m) => m[1])
    expect(values('schema:accessMode')).toEqual(['textual', 'visual'])
    expect(values('schema:accessModeSufficient')).toEqual(['textual'])
    expect(values('schema:accessibilityFeature')).toEqual(
      expect.arrayContaining([
        'structuralNavigation',
        'tableOfContents',
        'readingOrder',
        'alternativeText',
        'pageNavigation',
        'printPageNumbers',
      ]),
    )
    expect(values('schema:accessibilityHazard')).toEqual(['none'])
    expect(values('schema:accessibilitySummary')[0]).toMatch(/^This EPUB meets EPUB Accessibility 1\.1/)
    expect(values('dcterms:conformsTo')).toEqual(['EPUB Accessibility 1.1 - WCAG 2.1 Level AA'])
    expect(opf).toMatch(/<meta property="a11y:certifiedBy" refines="#conformance">CodeBook<\/meta>/)
    expect(opf).toMatch(/<dc:source id="pagination-source">[^<]*PDF edition[^<]*<\/dc:source>/)
    expect(opf).toContain('<meta refines="#pagination-source" property="source-of">pagination</meta>')
  })

  test.concurrent.each(['book', 'sample'] as const)(
    "the %s EPUB's page list has every page of its PDF, each marked where that PDF page starts",
    async (kind) => {
      const built = await build(book)
      const epub = built.epubs[kind]
      const pdfPages = await pdfPageTexts(
        `${book.slug}-${kind}.pdf`,
        kind === 'book' ? built.pdf : built.samplePdf,
      )
      const nav = await readEntry(epub, 'OEBPS/nav.xhtml')
      const pageList = /<nav epub:type="page-list"[^>]*>([\s\S]*?)<\/nav>/.exec(nav)?.[1] ?? ''
      const links = [...pageList.matchAll(/<a href="([^"#]+)#(page-\d+)">(\d+)<\/a>/g)]
      expect(links.map((link) => Number(link[3]))).toEqual(pdfPages.map((_, index) => index + 1))

      for (const [, file, id, label] of links) {
        const xhtml = await readEntry(epub, `OEBPS/${file}`)
        const marker = `<span epub:type="pagebreak" role="doc-pagebreak" id="${id}" aria-label="${label}"></span>`
        const at = xhtml.indexOf(marker)
        expect(at, `${id} in ${file}`).toBeGreaterThan(-1)
        // The text after the marker starts with the PDF page's first line (spaces aside: the PDF justifies).
        const epubText = ink(textOf(xhtml.slice(at + marker.length)))
        const firstLine = firstLineInk(pdfPages[Number(label) - 1]!)
        expect(firstLine.length, `PDF page ${label} has text`).toBeGreaterThan(0)
        expect(epubText.slice(0, firstLine.length), `page ${label} (${file})`).toBe(firstLine)
      }
    },
  )
})

test('the page breaks follow the reading order, and rendering again gives the same bytes', async () => {
  const book = books[0]!
  const { epubs } = await build(book)
  const opf = await readEntry(epubs.book, 'OEBPS/content.opf')
  const spine = [...opf.matchAll(/<itemref idref="([^"]+)"\/>/g)].map((match) => match[1]!)
  const hrefOf = (id: string) => new RegExp(`<item id="${id}" href="([^"]+)"`).exec(opf)![1]!
  const ids: number[] = []
  for (const id of spine) {
    const xhtml = await readEntry(epubs.book, `OEBPS/${hrefOf(id)}`)
    for (const match of xhtml.matchAll(/epub:type="pagebreak" role="doc-pagebreak" id="page-(\d+)"/g)) {
      ids.push(Number(match[1]))
    }
  }
  expect(ids).toEqual(ids.map((_, index) => index + 1))
  builds.delete(book.slug)
  const again = await build(book)
  for (const kind of ['book', 'sample'] as const) {
    expect(Buffer.compare(again.epubs[kind], epubs[kind]), kind).toBe(0)
  }
})

async function readEntry(epub: Uint8Array, name: string): Promise<string> {
  const file = (await JSZip.loadAsync(epub)).file(name)
  if (!file) throw new Error(`${name} is missing from the EPUB`)
  return file.async('string')
}

/** XHTML as text: tags dropped (a tag never separates two words here without whitespace), entities decoded. */
function textOf(xhtml: string): string {
  return xhtml
    .replace(/<[^>]*>/g, '')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
}

function ink(text: string): string {
  return text.replace(/\s/g, '')
}

/** A PDF page's first line of text, up to 12 characters: without a list's bullet or the contents' dot leader. */
function firstLineInk(page: string): string {
  const line = page.split('\n').find((text) => text.trim() !== '') ?? ''
  return ink(line.replace(/^\s*•/, '').replace(/(\s*\.){2,}\s*\d*\s*$/, '')).slice(0, 12)
}

async function pdfPageTexts(name: string, pdf: Uint8Array): Promise<string[]> {
  const file = path.join(tempDir, name)
  fs.writeFileSync(file, pdf)
  const { stdout } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], {
    maxBuffer: 64 * 1024 * 1024,
  })
  // Every page ends with a form feed.
  return stdout.split('\f').slice(0, -1)
}

const slots = createLimiter(2)

/**
 * Runs Ace's command line on one EPUB and returns its failed assertions as `rule: description` lines. Ace starts
 * its own Chromium per EPUB; at most two run at once on our two cores.
 */
function aceFailures(name: string, epub: Uint8Array): Promise<string[]> {
  return slots(async () => {
    const file = path.join(tempDir, `${name}.epub`)
    const outdir = path.join(tempDir, `ace-${name}`)
    fs.writeFileSync(file, epub)
    const ace = path.join(root, 'node_modules', '.bin', 'ace-cli')
    try {
      await run(ace, ['--force', '--silent', '--outdir', outdir, file], {
        env: { ...process.env, PUPPETEER_EXECUTABLE_PATH: chromium },
        timeout: 280_000,
      })
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string }
      throw new Error(
        `ace-cli failed on ${name}: ${String(error)}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`,
      )
    }
    const report = JSON.parse(fs.readFileSync(path.join(outdir, 'report.json'), 'utf8')) as unknown
    const failures = failedAssertions(report)
    // Ace's own verdict agrees with what was read out of it (an empty list because nothing was found would not).
    const outcome = (report as { 'earl:result'?: { 'earl:outcome'?: string } })['earl:result']?.[
      'earl:outcome'
    ]
    if ((outcome === 'pass') !== (failures.length === 0)) {
      throw new Error(`Ace's outcome is ${outcome} but ${failures.length} failed assertions were read`)
    }
    return failures
  })
}

type EarlNode = {
  'earl:test'?: { 'dct:title'?: string; 'earl:impact'?: string }
  'earl:result'?: { 'earl:outcome'?: string; 'dct:description'?: string }
  'earl:pointer'?: { css?: string[] }
  assertions?: EarlNode[]
  'earl:testSubject'?: { url?: string }
}

function failedAssertions(report: unknown): string[] {
  const failures: string[] = []
  const visit = (node: EarlNode, subject: string) => {
    const where = node['earl:testSubject']?.url ?? subject
    if (node['earl:test'] && node['earl:result']?.['earl:outcome'] === 'fail') {
      const test = node['earl:test']
      failures.push(
        `${where}: ${test['dct:title']} (${test['earl:impact']}): ${node['earl:result']['dct:description'] ?? ''}`,
      )
    }
    for (const child of node.assertions ?? []) visit(child, where)
  }
  visit(report as EarlNode, '')
  return failures
}

function createLimiter(limit: number) {
  let active = 0
  const waiting: (() => void)[] = []
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active < limit) active++
    else await new Promise<void>((resolve) => waiting.push(resolve))
    try {
      return await task()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else active--
    }
  }
}
