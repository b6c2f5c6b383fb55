import JSZip from 'jszip'
import { PDFDocument } from 'pdf-lib'
import sharp from 'sharp'
import { expect, test } from 'vitest'
import { fileKindOf, wholeFileProblem } from './files.ts'

async function pdf() {
  const document = await PDFDocument.create()
  document.addPage().drawText('A whole page of a whole book.')
  return document.save()
}

async function epub() {
  const zip = new JSZip()
  zip.file('mimetype', 'application/epub+zip', { compression: 'STORE' })
  zip.file('META-INF/container.xml', '<container/>')
  zip.file('OEBPS/chapter.xhtml', `<html><body>${'Words of a chapter. '.repeat(500)}</body></html>`)
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' })
}

async function image(format: 'avif' | 'webp' | 'jpeg') {
  return new Uint8Array(
    await sharp({ create: { width: 64, height: 96, channels: 3, background: { r: 200, g: 40, b: 90 } } })
      .toFormat(format)
      .toBuffer(),
  )
}

test('whole files pass, with or without the length they were announced with', async () => {
  const files = [
    [await pdf(), 'pdf'],
    [await epub(), 'epub'],
    [await image('jpeg'), 'image'],
    [await image('webp'), 'image'],
    [await image('avif'), 'image'],
  ] as const
  for (const [bytes, kind] of files) {
    expect(await wholeFileProblem(bytes, kind)).toBeNull()
    expect(await wholeFileProblem(bytes, kind, bytes.length)).toBeNull()
  }
})

test('the first part of a file is not whole, nor is a file of another length than announced', async () => {
  const files = [
    [await pdf(), 'pdf'],
    [await epub(), 'epub'],
    [await image('jpeg'), 'image'],
    [await image('webp'), 'image'],
    [await image('avif'), 'image'],
  ] as const
  for (const [bytes, kind] of files) {
    for (const cut of [0, 1, Math.floor(bytes.length / 2), bytes.length - 2])
      expect(await wholeFileProblem(bytes.subarray(0, cut), kind), `${kind} cut at ${cut}`).not.toBeNull()
    expect(await wholeFileProblem(bytes, kind, bytes.length + 1)).toMatch(/announced/)
  }
  // An EPUB whose entry's bytes were replaced keeps its directory but fails its CRC-32.
  const damaged = new Uint8Array(await epub())
  const at = Buffer.from(damaged).indexOf('OEBPS/chapter.xhtml') + 40
  damaged[at] = damaged[at]! ^ 0xff
  expect(await wholeFileProblem(damaged, 'epub')).not.toBeNull()
})

test('the kind of a key or URL, by its extension', () => {
  expect(fileKindOf('stamped/abc/book-1234-s2.pdf')).toBe('pdf')
  expect(fileKindOf('/library/book/download.epub')).toBe('epub')
  expect(fileKindOf('/media/covers/x-200.avif?v=1')).toBe('image')
  expect(fileKindOf('books/x/edition.sha256')).toBeNull()
})
