import JSZip from 'jszip'
import { PDFDocument, StandardFonts } from 'pdf-lib'
import { drawText, grey, stampBaseline } from './pdf-layout.server.ts'
import {
  epubDate,
  escapeXml,
  navPath,
  opfPath,
  packEpub,
  titlePageNavItem,
  xhtmlDocument,
  type EpubEntry,
} from './render-epub.server.ts'

/**
 * Social DRM: every downloaded copy names its buyer. The PDF gets a footer line on every page and the buyer in its
 * metadata; the EPUB gets a 'Prepared for …' page after the title page and the buyer in its package metadata.
 */

export type StampOptions = {
  email: string
  orderNumber: string | number
  /** When the copy was prepared (the PDF modification date, the EPUB's dcterms:modified); now by default. */
  stampedAt?: Date
}

/**
 * Bump whenever this file changes what a stamped copy contains (the footer line, the metadata, the EPUB's
 * 'Prepared for' page): stamped copies are cached under a key that includes this number
 * (downloads.server.ts), so without a bump readers keep receiving copies stamped the old way.
 */
export const stampFormatVersion = 1

export class StampError extends Error {
  override name = 'StampError'
}

const stampFontKey = 'F-codebook-stamp'
const stampSize = 7

export function stampLine({ email, orderNumber }: StampOptions): string {
  return `Prepared for ${email} · Order #${orderNumber} · CodeBook`
}

export async function stampPdf(pdfBytes: Uint8Array, options: StampOptions): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdfBytes, { updateMetadata: false })
  const font = await doc.embedFont(StandardFonts.Helvetica)
  // The standard fonts only cover WinAnsi; an address outside it still reaches the metadata intact.
  const encodable = new Set(font.getCharacterSet())
  const line = [...stampLine(options)]
    .map((char) => (encodable.has(char.codePointAt(0)!) ? char : '?'))
    .join('')
  for (const page of doc.getPages()) {
    const { width } = page.getSize()
    const available = width - 2 * Math.min(63, width * 0.1)
    const natural = font.widthOfTextAtSize(line, stampSize)
    // A very long address shrinks to stay within the margins rather than being cut.
    const size = natural > available ? (stampSize * available) / natural : stampSize
    const x = (width - font.widthOfTextAtSize(line, size)) / 2
    drawText(page, font, stampFontKey, line, { x, y: stampBaseline, size, color: grey })
  }
  doc.setSubject(`Prepared for ${options.email} · Order #${options.orderNumber}`)
  doc.setKeywords([`prepared-for:${options.email}`, `order:${options.orderNumber}`, 'CodeBook', 'DRM-free'])
  doc.setModificationDate(options.stampedAt ?? new Date())
  return doc.save()
}

export async function stampEpub(epubBytes: Uint8Array, options: StampOptions): Promise<Uint8Array> {
  const zip = await JSZip.loadAsync(epubBytes)
  const opfFile = zip.file(opfPath)
  const navFile = zip.file(navPath)
  if (!opfFile || !navFile) throw new StampError(`${opfPath} or ${navPath} is missing: not a CodeBook EPUB`)
  let opf = await opfFile.async('string')
  let nav = await navFile.async('string')

  const email = escapeXml(options.email)
  const order = escapeXml(String(options.orderNumber))
  const modified = /<meta property="dcterms:modified">[^<]*<\/meta>/
  const anchors = ['</metadata>', '</manifest>', '<itemref idref="title-page"/>']
  const unstamped = !opf.includes('prepared-for') && nav.includes(titlePageNavItem)
  if (!unstamped || !modified.test(opf) || anchors.some((anchor) => !opf.includes(anchor))) {
    throw new StampError(`${opfPath} is not an unstamped CodeBook package`)
  }
  const metadata = [
    `<dc:rights>This copy was prepared for ${email} (order #${order}). It is DRM-free and for personal use only.</dc:rights>`,
    `<meta property="codebook:prepared-for">${email}</meta>`,
    `<meta property="codebook:order-number">${order}</meta>`,
  ]
  // Replacer functions, not strings: in a replacement string `$&` and the like are patterns, and an email
  // address may contain them.
  const modifiedAt = epubDate(options.stampedAt ?? new Date())
  opf = opf
    .replace(modified, () => `<meta property="dcterms:modified">${modifiedAt}</meta>`)
    .replace('</metadata>', () => `  ${metadata.join('\n    ')}\n  </metadata>`)
    .replace(
      '</manifest>',
      () =>
        `  <item id="prepared-for" href="prepared-for.xhtml" media-type="application/xhtml+xml"/>\n  </manifest>`,
    )
    .replace(
      '<itemref idref="title-page"/>',
      () => `<itemref idref="title-page"/>\n    <itemref idref="prepared-for"/>`,
    )

  nav = nav.replace(
    titlePageNavItem,
    () => `${titlePageNavItem}\n    <li><a href="prepared-for.xhtml">Prepared for you</a></li>`,
  )

  const page = xhtmlDocument(
    'Prepared for you',
    `<section class="prepared-for" aria-label="Prepared for ${email}">
  <p>Prepared for</p>
  <p><strong>${email}</strong></p>
  <p>Order #${order}</p>
  <p>This copy is DRM-free and for your personal use: read it on any device you own.</p>
</section>`,
  )

  // Rebuilt entry by entry so `mimetype` stays first and stored.
  const entries: EpubEntry[] = []
  for (const file of Object.values(zip.files)) {
    if (file.dir || file.name === 'mimetype') continue
    const data = file.name === opfPath ? opf : file.name === navPath ? nav : await file.async('uint8array')
    entries.push({ path: file.name, data })
    if (file.name === opfPath) entries.push({ path: 'OEBPS/prepared-for.xhtml', data: page })
  }
  return packEpub(entries)
}
