import { PDFDocument } from 'pdf-lib'

/** The number of pages of a PDF edition (or sample), read from the file itself. */
export async function countPdfPages(pdf: Uint8Array): Promise<number> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false })
  return doc.getPageCount()
}
