import { execFile, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import JSZip from 'jszip'
import { PDFDocument } from 'pdf-lib'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { seedBooks } from '#app/features/catalog/seed-books.ts'
import {
  buildEditions,
  manuscriptDir,
  type Editions,
} from '#app/features/library/editions/build-editions.server.ts'
import { type BookInfo, parseManuscript, plainText } from '#app/features/library/editions/manuscript.ts'
import {
  type EpubCover,
  escapeXml,
  renderBookEpub,
} from '#app/features/library/editions/render-epub.server.ts'
import { stampEpub, stampPdf } from '#app/features/library/editions/stamp.server.ts'
import { findProjectRoot } from '#app/server/project-root.server.ts'

const run = promisify(execFile)

// Debian's /usr/bin/epubcheck is a symlink to the jar itself, which does not execute without binfmt support.
const epubcheckJar = '/usr/share/java/epubcheck.jar'
const missingTools = 'needs epubcheck, Java and pdftotext: apt-get install epubcheck poppler-utils'

const buyer = { email: "o'brien+a&b@example.com", orderNumber: 'CB-1042' }

type Case = { label: string; book: BookInfo; source: string; text: string; cover?: EpubCover }
const fixtureFile = path.join(findProjectRoot(), 'tests', 'fixtures', 'manuscript.md')
const cases: Case[] = [
  {
    label: 'fixture',
    book: {
      slug: 'fixture',
      title: 'Files, Streams & Stamps: A <Field> Guide',
      author: 'Ada “Example” Lovelace',
    },
    source: fixtureFile,
    text: fs.readFileSync(fixtureFile, 'utf8'),
  },
  ...seedBooks.flatMap((book) => {
    const source = path.join(manuscriptDir(), `${book.slug}.md`)
    return fs.existsSync(source)
      ? [
          {
            label: book.slug,
            book,
            source,
            text: fs.readFileSync(source, 'utf8'),
            // As the store renders them: with the cover it shows (public/covers/*.svg).
            cover: {
              bytes: fs.readFileSync(path.join(findProjectRoot(), 'public', book.coverPath)),
              mediaType: 'image/svg+xml' as const,
            },
          },
        ]
      : []
  }),
]

let tempDir: string
beforeAll(() => {
  const java = spawnSync('java', ['-version'])
  const pdftotext = spawnSync('pdftotext', ['-v'])
  if (java.error || !fs.existsSync(epubcheckJar) || pdftotext.error) throw new Error(missingTools)
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-editions-'))
})
afterAll(() => {
  if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true })
})

type Built = { editions: Editions; stampedPdf: Uint8Array; stampedEpub: Uint8Array; sampleEpub: Uint8Array }
const builds = new Map<string, Promise<Built>>()
function build({ label, book, text, source, cover }: Case): Promise<Built> {
  let built = builds.get(label)
  if (!built) {
    built = (async () => {
      const editions = await buildEditions(book, text, { source, cover })
      const stampedPdf = await stampPdf(editions.pdf, buyer)
      const stampedEpub = await stampEpub(editions.epub, buyer)
      const sampleEpub = await renderBookEpub(book, parseManuscript(text, source), {
        cover,
        sampleOnly: true,
      })
      return { editions, stampedPdf, stampedEpub, sampleEpub }
    })()
    builds.set(label, built)
  }
  return built
}

describe.each(cases)('$label', (testCase) => {
  const manuscript = parseManuscript(testCase.text, testCase.source)

  test.concurrent(
    'the EPUB, the stamped EPUB and the sample EPUB pass epubcheck with no errors and no warnings',
    async () => {
      const results = await epubcheckAll()
      for (const suffix of ['', '-stamped', '-sample']) {
        const name = `${testCase.label}${suffix}.epub`
        const result = results.get(path.join(tempDir, name))
        expect(result, name).toBeDefined()
        expect(result!.output).toContain('Messages: 0 fatals / 0 errors / 0 warnings')
        expect(result!.exitCode, result!.output).toBe(0)
      }
    },
    240_000,
  )

  test.concurrent(
    'with a cover, the EPUB declares it as its cover-image and opens on a cover page',
    async () => {
      const { editions, stampedEpub } = await build(testCase)
      for (const epub of [editions.epub, stampedEpub]) {
        const zip = await JSZip.loadAsync(epub)
        const opf = await zip.file('OEBPS/content.opf')!.async('string')
        if (!testCase.cover) {
          expect(opf).not.toContain('cover-image')
          continue
        }
        expect(opf).toContain(
          '<item id="cover-image" href="cover.svg" media-type="image/svg+xml" properties="cover-image"/>',
        )
        expect(opf).toContain('<meta name="cover" content="cover-image"/>')
        expect(opf).toMatch(/<spine>\s*<itemref idref="cover"\/>\s*<itemref idref="title-page"\/>/)
        expect(await zip.file('OEBPS/cover.svg')!.async('uint8array')).toEqual(
          new Uint8Array(testCase.cover.bytes),
        )
        const page = await zip.file('OEBPS/cover.xhtml')!.async('string')
        // The cover's role as DPUB-ARIA names it (Ace's epub-type-has-matching-role), on the image itself.
        expect(page).toContain(
          `<img epub:type="cover" role="doc-cover" src="cover.svg" alt="Cover of ${testCase.book.title}"/>`,
        )
      }
    },
  )

  const figures = manuscript.chapters.flatMap((chapter, index) =>
    chapter.blocks.flatMap((block) => (block.type === 'image' ? [{ chapter: index, block }] : [])),
  )
  test
    .runIf(figures.length > 0)
    .concurrent(
      'every figure is in the EPUB with its alt text and caption, and drawn in the PDF',
      async () => {
        const { editions } = await build(testCase)
        const zip = await JSZip.loadAsync(editions.epub)
        const opf = await zip.file('OEBPS/content.opf')!.async('string')
        for (const [index, { chapter, block }] of figures.entries()) {
          const xhtml = await zip.file(`OEBPS/chapter-${chapter + 1}.xhtml`)!.async('string')
          const img = new RegExp(
            `<img src="(images/[^"]+)" alt="${escapeRegExp(escapeXml(block.alt))}" width="${block.image.width}" height="${block.image.height}"/>`,
          ).exec(xhtml)
          expect(img, `figure ${index + 1}`).not.toBeNull()
          expect(await zip.file(`OEBPS/${img![1]}`)!.async('uint8array')).toEqual(block.image.bytes)
          expect(opf).toContain(`href="${img![1]}" media-type="${block.image.mediaType}"`)
          if (block.caption) expect(xhtml).toContain(`<figcaption>${escapeXml(block.caption)}</figcaption>`)
        }
        expect(opf).toContain('<meta property="schema:accessibilityFeature">alternativeText</meta>')
        // pdfimages lists every image the PDF draws, with its pixel size.
        const pdf = writeTemp(`${testCase.label}-figures.pdf`, editions.pdf)
        const { stdout } = await run('pdfimages', ['-list', pdf])
        const sizes = stdout
          .split('\n')
          .slice(2)
          .filter(Boolean)
          .map((row) => row.trim().split(/\s+/).slice(3, 5).join('×'))
        expect(sizes).toEqual(figures.map(({ block }) => `${block.image.width}×${block.image.height}`))
      },
    )

  test.concurrent('the zip starts with a stored mimetype, before and after stamping', async () => {
    const { editions, stampedEpub } = await build(testCase)
    for (const epub of [editions.epub, stampedEpub]) {
      const header = Buffer.from(epub.subarray(0, 58))
      expect(header.readUInt32LE(0)).toBe(0x04034b50)
      expect(header.readUInt16LE(8)).toBe(0) // stored, not deflated
      expect(header.readUInt16LE(28)).toBe(0) // no extra field
      expect(header.toString('latin1', 30, 58)).toBe('mimetypeapplication/epub+zip')
    }
  })

  test.concurrent(
    'the stamped EPUB has a Prepared for page after the title page and the buyer in its metadata',
    async () => {
      const { stampedEpub } = await build(testCase)
      const zip = await JSZip.loadAsync(stampedEpub)
      const opf = await zip.file('OEBPS/content.opf')!.async('string')
      const page = await zip.file('OEBPS/prepared-for.xhtml')!.async('string')
      const nav = await zip.file('OEBPS/nav.xhtml')!.async('string')
      const email = 'o&#39;brien+a&#38;b@example.com'
      expect(page).toContain('Prepared for')
      expect(page).toContain(email)
      expect(page).toContain('Order #CB-1042')
      expect(opf).toMatch(new RegExp(`<dc:rights>[^<]*${escapeRegExp(email)}[^<]*CB-1042[^<]*</dc:rights>`))
      expect(opf).toContain(`<meta property="codebook:prepared-for">${email}</meta>`)
      expect(opf).toMatch(/<itemref idref="title-page"\/>\s*<itemref idref="prepared-for"\/>/)
      expect(opf).toMatch(
        /<item id="prepared-for" href="prepared-for.xhtml" media-type="application\/xhtml\+xml"\/>/,
      )
      expect(nav).toContain('<a href="prepared-for.xhtml">Prepared for you</a>')
    },
  )

  test.concurrent('every page of the stamped PDF names the buyer and the order', async () => {
    const { stampedPdf } = await build(testCase)
    const pageCount = (await PDFDocument.load(stampedPdf)).getPageCount()
    const pages = await pdfPages(writeTemp(`${testCase.label}-stamped.pdf`, stampedPdf))
    expect(pages).toHaveLength(pageCount)
    // Title, contents and one page per chapter at the least.
    expect(pageCount).toBeGreaterThanOrEqual(2 + manuscript.chapters.length)
    pages.forEach((page, index) => {
      expect(page, `page ${index + 1}`).toContain(
        `Prepared for ${buyer.email} · Order #${buyer.orderNumber} · CodeBook`,
      )
    })
    const info = await PDFDocument.load(stampedPdf, { updateMetadata: false })
    expect(info.getSubject()).toContain(buyer.email)
    expect(info.getKeywords()).toContain(buyer.orderNumber)
    expect(info.getTitle()).toBe(testCase.book.title)
    expect(info.getProducer()).toBe('CodeBook')
  })

  test.concurrent(
    'the full PDF holds every chapter, the sample only the first and a closing page',
    async () => {
      const { editions } = await build(testCase)
      const full = normalize((await pdfPages(writeTemp(`${testCase.label}.pdf`, editions.pdf))).join(' '))
      const sample = normalize(
        (await pdfPages(writeTemp(`${testCase.label}-sample.pdf`, editions.samplePdf))).join(' '),
      )
      const chapterTitle = (index: number) =>
        `Chapter ${index + 1} — ${plainText(manuscript.chapters[index]!.title)}`

      manuscript.chapters.forEach((_, index) => expect(full).toContain(chapterTitle(index)))
      const firstParagraph = manuscript.chapters[0]!.blocks.find((block) => block.type === 'paragraph')
      const opening = normalize(plainText(firstParagraph!.text)).split(' ').slice(0, 20).join(' ')
      expect(full).toContain(opening)
      expect(sample).toContain(chapterTitle(0))
      expect(sample).toContain(opening)
      expect(sample).toContain('End of the free sample — the full book is available at CodeBook.')
      if (manuscript.chapters.length > 1) expect(sample).not.toContain(chapterTitle(1))
    },
  )

  test('rendering twice gives the same bytes', async () => {
    const { editions } = await build(testCase)
    const again = await buildEditions(testCase.book, testCase.text, {
      source: testCase.source,
      cover: testCase.cover,
    })
    expect(Buffer.compare(again.pdf, editions.pdf)).toBe(0)
    expect(Buffer.compare(again.samplePdf, editions.samplePdf)).toBe(0)
    expect(Buffer.compare(again.epub, editions.epub)).toBe(0)
  })
})

test('every catalogue book has a manuscript', () => {
  // Missing manuscripts would otherwise just mean fewer cases above, and a green run that checked nothing.
  expect(fs.existsSync(manuscriptDir()), `${manuscriptDir()} exists`).toBe(true)
  const missing = seedBooks.filter((book) => !cases.some((testCase) => testCase.label === book.slug))
  expect(missing.map((book) => book.slug)).toEqual([])
})

function writeTemp(name: string, bytes: Uint8Array): string {
  const file = path.join(tempDir, name)
  fs.writeFileSync(file, bytes)
  return file
}

async function pdfPages(file: string): Promise<string[]> {
  const { stdout } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'])
  // Every page ends with a form feed.
  return stdout.split('\f').slice(0, -1)
}

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

type EpubcheckResult = { exitCode: number; output: string }
// C1-only JIT and the serial collector start the short-lived JVM noticeably faster.
const jvmFlags = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC']

let epubcheckRun: Promise<Map<string, EpubcheckResult>> | undefined
/** Every case's EPUB, stamped EPUB and sample EPUB, checked together the first time any test asks. */
function epubcheckAll(): Promise<Map<string, EpubcheckResult>> {
  epubcheckRun ??= (async () => {
    const files: string[] = []
    for (const testCase of cases) {
      const { editions, stampedEpub, sampleEpub } = await build(testCase)
      files.push(writeTemp(`${testCase.label}.epub`, editions.epub))
      files.push(writeTemp(`${testCase.label}-stamped.epub`, stampedEpub))
      files.push(writeTemp(`${testCase.label}-sample.epub`, sampleEpub))
    }
    return (await epubcheckBatch(files)) ?? epubcheckEach(files)
  })()
  return epubcheckRun
}

/**
 * One JVM for all files (a JVM start costs seconds, a small EPUB a fraction of one), through Java's single-file
 * source launcher; undefined when that needs a compiler this machine lacks (a JRE without a JDK).
 */
async function epubcheckBatch(files: string[]): Promise<Map<string, EpubcheckResult> | undefined> {
  const runner = path.join(findProjectRoot(), 'tests', 'fixtures', 'epubcheck-batch.java')
  let stdout: string
  try {
    ;({ stdout } = await run('java', [...jvmFlags, '-cp', epubcheckJar, runner, ...files], {
      maxBuffer: 64 * 1024 * 1024,
    }))
  } catch (error) {
    const failed = error as { code?: number | string; stderr?: string }
    if (typeof failed.code !== 'number') throw new Error(`${missingTools} (${String(error)})`)
    if (/compiler|jdk\.compiler/i.test(failed.stderr ?? '')) return undefined
    throw error
  }
  const results = new Map<string, EpubcheckResult>()
  for (const section of stdout.split('=== epubcheck ').slice(1)) {
    const file = section.slice(0, section.indexOf('\n'))
    const exit = /=== exit (\d+)\s*$/.exec(section)
    if (!exit) throw new Error(`epubcheck did not finish ${file}:\n${section}`)
    results.set(file, { exitCode: Number(exit[1]), output: section })
  }
  return results
}

/** The plain command line, one JVM per file, at most two at once on our two cores. */
async function epubcheckEach(files: string[]): Promise<Map<string, EpubcheckResult>> {
  const slot = createLimiter(2)
  const results = await Promise.all(
    files.map((file) =>
      slot(async (): Promise<EpubcheckResult> => {
        try {
          const { stdout, stderr } = await run('java', [...jvmFlags, '-jar', epubcheckJar, file])
          return { exitCode: 0, output: stdout + stderr }
        } catch (error) {
          const failed = error as { code?: number | string; stdout?: string; stderr?: string }
          if (typeof failed.code !== 'number') throw new Error(`${missingTools} (${String(error)})`)
          return { exitCode: failed.code, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` }
        }
      }),
    ),
  )
  return new Map(files.map((file, index) => [file, results[index]!]))
}

function createLimiter(limit: number) {
  let active = 0
  const waiting: (() => void)[] = []
  return async <T>(task: () => Promise<T>): Promise<T> => {
    // A finishing task hands its slot straight to the next in line, so no newcomer can slip in between.
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
