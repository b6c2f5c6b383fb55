import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { findProjectRoot } from '#app/server/project-root.server.ts'
import type { FileStorage } from '#app/server/storage.server.ts'
import { type BookInfo, parseManuscript } from './manuscript.ts'
import { type EpubCover, renderBookEpub } from './render-epub.server.ts'
import { renderBookPdf } from './render-pdf.server.ts'

export type Editions = { pdf: Uint8Array; epub: Uint8Array; samplePdf: Uint8Array }
export type EditionKind = keyof Editions

/**
 * Bump when the renderers change their output, so editions already in storage are rendered again
 * (publishEditions compares a fingerprint of this, the book and its manuscript).
 */
export const editionFormatVersion = 4

const slugPattern = /^[a-z0-9][a-z0-9-]*$/

/** Where each edition of a book lives in the file storage. */
export function editionKeys(slug: string): Record<EditionKind, string> {
  assertSlug(slug)
  return {
    pdf: `books/${slug}/${slug}.pdf`,
    epub: `books/${slug}/${slug}.epub`,
    samplePdf: `books/${slug}/${slug}-sample.pdf`,
  }
}

/**
 * Where an edition published in the back office lives (decision 013): a folder per book and edition number,
 * named by the book's id (its slug may change), so a new edition never overwrites the files of the live one
 * while someone downloads them, and every instance derives the same keys from the database.
 */
export function publishedEditionKeys(bookId: string, edition: number): Record<EditionKind, string> {
  if (!/^[0-9a-f-]{36}$/.test(bookId)) throw new Error(`Invalid book id ${JSON.stringify(bookId)}`)
  if (!Number.isSafeInteger(edition) || edition < 1) throw new Error(`Invalid edition ${edition}`)
  const folder = `editions/${bookId}/${edition}`
  return { pdf: `${folder}/book.pdf`, epub: `${folder}/book.epub`, samplePdf: `${folder}/sample.pdf` }
}

/** A file's or a text's SHA-256, in hex: how editions, their files and the audit log tell versions apart. */
export const sha256Of = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex')

/** The `book_files.format` each rendered file is listed under. */
export const bookFileFormatOf = { pdf: 'pdf', epub: 'epub', samplePdf: 'sample' } as const satisfies Record<
  EditionKind,
  string
>

/** The fingerprint file that sits next to a set of edition files (see publishEditions). */
export function fingerprintKeyOf(keys: Record<EditionKind, string>): string {
  return fingerprintKeyBeside(keys.pdf)
}

/** The fingerprint file in the folder of one edition file (`books/<slug>/…`, `editions/<id>/<n>/…`). */
export function fingerprintKeyBeside(fileKey: string): string {
  return `${fileKey.slice(0, fileKey.lastIndexOf('/'))}/edition.sha256`
}

/** The fingerprint of what an edition's files are made from: renderer version, book, manuscript and cover. */
export function editionFingerprint(book: BookInfo, manuscriptText: string, cover?: EpubCover): string {
  const coverHash = cover ? sha256Of(cover.bytes) : null
  return createHash('sha256')
    .update(
      JSON.stringify([editionFormatVersion, book.slug, book.title, book.author, manuscriptText, coverHash]),
    )
    .digest('hex')
}

/** Renders the three files of a book; `source` names the manuscript in parse errors; `cover` goes in the EPUB. */
export async function buildEditions(
  book: BookInfo,
  manuscriptText: string,
  { source = `content/books/${book.slug}.md`, cover }: { source?: string; cover?: EpubCover } = {},
): Promise<Editions> {
  const manuscript = parseManuscript(manuscriptText, source)
  const pdf = await renderBookPdf(book, manuscript)
  const samplePdf = await renderBookPdf(book, manuscript, { sampleOnly: true })
  const epub = await renderBookEpub(book, manuscript, { cover })
  return { pdf, epub, samplePdf }
}

/** The folder of manuscripts, found from package.json so it works under tsx, Vitest and the built server. */
export function manuscriptDir(): string {
  return path.join(findProjectRoot(), 'content', 'books')
}

/** Reads `content/books/<slug>.md`. */
export async function readManuscript(slug: string): Promise<string> {
  assertSlug(slug)
  const file = path.join(manuscriptDir(), `${slug}.md`)
  try {
    return await fs.readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`No manuscript for "${slug}": ${file} does not exist`, { cause: error })
    }
    throw error
  }
}

export type PublishResult = { rendered: boolean; sizes: Record<EditionKind, number> }

/**
 * Renders a book's editions into storage unless the stored ones were made from the same book, manuscript and
 * renderer version. The fingerprint is written last, so an interrupted run renders again next time.
 */
export async function publishEditions(
  storage: FileStorage,
  book: BookInfo,
  manuscriptText: string,
  {
    force = false,
    keys = editionKeys(book.slug),
    cover,
  }: {
    force?: boolean
    /** Where to write; the seed's `books/<slug>/` keys by default. */ keys?: Record<EditionKind, string>
    /** The cover the EPUB carries (the book's, as the store shows it). */
    cover?: EpubCover
  } = {},
): Promise<PublishResult> {
  const fingerprintKey = fingerprintKeyOf(keys)
  const fingerprint = editionFingerprint(book, manuscriptText, cover)

  if (!force) {
    const stored = await storage.read(fingerprintKey)
    if (stored && new TextDecoder().decode(stored) === fingerprint) {
      const stats = await Promise.all(Object.values(keys).map((key) => storage.stat(key)))
      if (stats.every((stat) => stat !== null)) {
        const [pdf, epub, samplePdf] = stats.map((stat) => stat!.size) as [number, number, number]
        return { rendered: false, sizes: { pdf, epub, samplePdf } }
      }
    }
  }

  const editions = await buildEditions(book, manuscriptText, { cover })
  await writeEditions(storage, keys, editions, fingerprint)
  return {
    rendered: true,
    sizes: { pdf: editions.pdf.length, epub: editions.epub.length, samplePdf: editions.samplePdf.length },
  }
}

/**
 * Writes rendered files under `keys`, then their fingerprint: the fingerprint goes first and comes back last,
 * so an interrupted write is rendered again next time.
 */
export async function writeEditions(
  storage: FileStorage,
  keys: Record<EditionKind, string>,
  editions: Editions,
  fingerprint: string,
): Promise<void> {
  const fingerprintKey = fingerprintKeyOf(keys)
  await storage.delete(fingerprintKey)
  for (const kind of Object.keys(keys) as EditionKind[]) await storage.put(keys[kind], editions[kind])
  await storage.put(fingerprintKey, new TextEncoder().encode(fingerprint))
}

function assertSlug(slug: string): void {
  if (!slugPattern.test(slug)) throw new Error(`Invalid book slug ${JSON.stringify(slug)}`)
}
