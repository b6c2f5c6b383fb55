/**
 * Renders every catalogue book's editions (PDF, EPUB, free-sample PDF) from content/books/<slug>.md into the file
 * storage at DATA_DIR/files. Books whose manuscript and renderer have not changed are skipped; `--force` renders
 * everything again. Optional slugs limit the run: `tsx scripts/build-books.ts django-framework`.
 */
import fs from 'node:fs'
import path from 'node:path'
import { seedBooks } from '#app/features/catalog/seed-books.ts'
import {
  editionKeys,
  manuscriptDir,
  publishEditions,
  readManuscript,
} from '#app/features/library/editions/build-editions.server.ts'
import { readEpubCover } from '#app/features/library/editions/epub-cover.server.ts'
import { createLocalStorage } from '#app/server/storage.server.ts'

const args = process.argv.slice(2)
const force = args.includes('--force')
const only = args.filter((arg) => !arg.startsWith('--'))

try {
  const dir = manuscriptDir()
  const manuscripts = fs.existsSync(dir)
    ? fs.readdirSync(dir).filter((file) => file.endsWith('.md'))
    : ([] as string[])
  const known = new Set(seedBooks.map((book) => book.slug))
  const strays = manuscripts.filter((file) => !known.has(path.basename(file, '.md')))
  if (strays.length > 0)
    throw new Error(`No catalogue book for ${strays.map((file) => `${dir}/${file}`).join(', ')}`)
  const unknown = only.filter((slug) => !known.has(slug))
  if (unknown.length > 0) throw new Error(`Unknown book slug: ${unknown.join(', ')}`)

  const books = seedBooks.filter((book) => only.length === 0 || only.includes(book.slug))
  const missing = books.filter((book) => !manuscripts.includes(`${book.slug}.md`))
  if (missing.length > 0) {
    throw new Error(`Missing manuscripts in ${dir}: ${missing.map((book) => `${book.slug}.md`).join(', ')}`)
  }

  const root = path.resolve(process.env.DATA_DIR ?? 'data', 'files')
  const storage = createLocalStorage(root)
  console.log(
    `Rendering ${books.length} book${books.length === 1 ? '' : 's'} into ${root}${force ? ' (forced)' : ''}`,
  )
  const started = performance.now()
  for (const book of books) {
    const bookStarted = performance.now()
    const cover = await readEpubCover(storage, { cover: null, coverPath: book.coverPath })
    const result = await publishEditions(storage, book, await readManuscript(book.slug), { force, cover })
    const keys = editionKeys(book.slug)
    const sizes = (Object.keys(keys) as (keyof typeof keys)[])
      .map((kind) => `${path.basename(keys[kind])} ${formatSize(result.sizes[kind])}`)
      .join(', ')
    const took = `${Math.round(performance.now() - bookStarted)} ms`
    console.log(`${result.rendered ? 'rendered' : 'up to date'}  ${book.slug}: ${sizes} (${took})`)
  }
  console.log(`Done in ${((performance.now() - started) / 1000).toFixed(2)} s.`)
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
}

function formatSize(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`
}
