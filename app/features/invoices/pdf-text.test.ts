import { PDFDocument, StandardFonts } from 'pdf-lib'
import { describe, expect, test } from 'vitest'
import { encodableText } from './pdf-text.ts'

const doc = await PDFDocument.create()
const helvetica = await doc.embedFont(StandardFonts.Helvetica)
const winAnsi = new Set(helvetica.getCharacterSet())
const forHelvetica = (text: string) => encodableText(text, winAnsi)

describe('text a standard PDF font can show', () => {
  test('Western European letters stay as they are', () => {
    expect(forHelvetica('Zoë Ångström, Müllerstraße 5, Besançon — 12 €')).toBe(
      'Zoë Ångström, Müllerstraße 5, Besançon — 12 €',
    )
    // Composed or not, the same letter.
    expect(forHelvetica('Zoe\u0308')).toBe('Zoë')
  })

  test('a letter outside the encoding loses its diacritic; other scripts become ?', () => {
    expect(forHelvetica('Łódź, ul. Piotrkowska 1')).toBe('Lódz, ul. Piotrkowska 1')
    expect(forHelvetica('Đorđe Šćepanović')).toBe('Dorde Šcepanovic')
    expect(forHelvetica('山田 太郎')).toBe('?? ??')
    expect(forHelvetica('Иван')).toBe('????')
  })

  test('anything at all can be drawn: emoji, joiners, controls, direction marks, odd spaces', () => {
    const awkward = 'A\u0000B\tC\u202FD\u200DE\u202Eא👩‍💻\uFE0F\u0301'
    // The Hebrew letter and the two emoji joined into one picture are three characters the font lacks.
    const text = forHelvetica(awkward)
    expect(text).toBe('AB C DE???')
    expect(() => helvetica.encodeText(text)).not.toThrow()
    expect(() => helvetica.widthOfTextAtSize(text, 10)).not.toThrow()
  })
})
