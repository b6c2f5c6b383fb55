/**
 * Text for a PDF font, which can only show the characters it has glyphs for: pdf-lib throws on any other. The
 * invoices embed DejaVu Sans Condensed (invoice-pdf.server.ts: every European script); the download stamp uses
 * a standard font (WinAnsi: Western European letters; features/library/editions/stamp.server.ts). A name or
 * address may be any Unicode, so every string goes through `encodableText` first and a name never fails a
 * document: a character the font cannot show becomes '?', but first a letter with a diacritic the font lacks
 * loses the diacritic ('Łódź' → 'Lódz' in WinAnsi). The exact text is kept in the invoice's JSON snapshot and
 * the PDF's attachment and metadata.
 */

/** Letters NFD does not take apart into a base letter and a mark. */
const LOOKALIKES: Record<string, string> = {
  Ł: 'L',
  ł: 'l',
  Đ: 'D',
  đ: 'd',
  Ħ: 'H',
  ħ: 'h',
  ı: 'i',
  Ŧ: 'T',
  ŧ: 't',
  Ŀ: 'L',
  ŀ: 'l',
  ĸ: 'k',
  Ĳ: 'IJ',
  ĳ: 'ij',
  ẞ: 'SS',
  '\u2010': '-',
  '\u2011': '-',
  '\u2212': '-',
  '\u2032': "'",
  '\u2033': '"',
  '\u2192': '->',
  '\u2190': '<-',
  '\u2264': '<=',
  '\u2265': '>=',
  '\u2260': '!=',
}

/** `text` with only characters in `encodable` (a font's code points, `PDFFont.getCharacterSet()`). */
export function encodableText(text: string, encodable: ReadonlySet<number>): string {
  let out = ''
  for (const char of text.normalize('NFC')) {
    if (encodable.has(char.codePointAt(0)!)) out += char
    // Any other space (a tab, a narrow no-break space) is a space; a line break is the caller's to split on.
    else if (/\s/u.test(char)) out += ' '
    // Controls, joiners, direction marks and variation selectors show nothing anyway.
    else if (/[\p{Cc}\p{Cf}\p{M}]/u.test(char)) continue
    else {
      const plain = LOOKALIKES[char] ?? char.normalize('NFD').replace(/\p{M}/gu, '')
      const fits = plain !== '' && [...plain].every((c) => encodable.has(c.codePointAt(0)!))
      out += fits ? plain : '?'
    }
  }
  return out
}
