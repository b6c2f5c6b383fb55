import JSZip from 'jszip'
import { describe, expect, test } from 'vitest'
import { columnName, XLSX_TYPE, xlsxResponse, xlsxStream } from './xlsx.server.ts'

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer())
}

describe('xlsxStream', () => {
  test('a workbook a spreadsheet opens: its sheets by name, text, numbers and amounts in their cells', async () => {
    async function* orders() {
      yield [['=HYPERLINK("http://evil")', 3, { cents: 1250 }]]
      yield []
      yield [['Ünïcödé & <tags> "quoted"\u0007', null, { cents: -50 }]]
    }
    const zip = await JSZip.loadAsync(
      await bytesOf(
        xlsxStream([
          { name: 'Orders', header: ['Title', 'Count', 'Total'], rows: orders() },
          { name: 'Tax', header: ['Country'], rows: [[['DE'], ['FR']]] },
        ]),
      ),
    )
    const types = await zip.file('[Content_Types].xml')!.async('string')
    expect(types).toContain('/xl/worksheets/sheet2.xml')
    const workbook = await zip.file('xl/workbook.xml')!.async('string')
    expect(workbook).toMatch(/<sheet name="Orders" sheetId="1" r:id="rId1"\/><sheet name="Tax" sheetId="2"/)
    const rels = await zip.file('xl/_rels/workbook.xml.rels')!.async('string')
    expect(rels).toContain('Target="worksheets/sheet1.xml"')
    expect(rels).toContain('Target="styles.xml"')

    const first = await zip.file('xl/worksheets/sheet1.xml')!.async('string')
    expect(first).toContain('<c r="A1" t="inlineStr" s="2"><is><t xml:space="preserve">Title</t></is></c>')
    // A formula stays text: an inline string is never run.
    expect(first).toContain(
      '<c r="A2" t="inlineStr"><is><t xml:space="preserve">=HYPERLINK(&quot;http://evil&quot;)</t></is></c><c r="B2"><v>3</v></c><c r="C2" s="1"><v>12.50</v></c>',
    )
    // Escaped, the control character left out, the empty cell not written, the rows numbered on.
    expect(first).toContain(
      '<row r="3"><c r="A3" t="inlineStr"><is><t xml:space="preserve">Ünïcödé &amp; &lt;tags&gt; &quot;quoted&quot;</t></is></c><c r="C3" s="1"><v>-0.50</v></c></row>',
    )
    expect(first).toMatch(/<\/sheetData><\/worksheet>$/)
    const second = await zip.file('xl/worksheets/sheet2.xml')!.async('string')
    expect(second).toContain('<row r="3"><c r="A3" t="inlineStr"><is><t xml:space="preserve">FR</t>')
  })

  test('a name a spreadsheet refuses is refused before anything is written', () => {
    expect(() => xlsxStream([{ name: 'Q1/2026', header: [], rows: [] }])).toThrow(/cannot name a sheet/)
    expect(() => xlsxStream([{ name: 'x'.repeat(32), header: [], rows: [] }])).toThrow()
  })

  test('columns are named as spreadsheets name them', () => {
    expect([0, 25, 26, 27, 51, 52, 701, 702].map(columnName)).toEqual([
      'A',
      'Z',
      'AA',
      'AB',
      'AZ',
      'BA',
      'ZZ',
      'AAA',
    ])
  })

  test('the response is a private download', () => {
    const response = xlsxResponse(xlsxStream([]), 'accounts.xlsx')
    expect(response.headers.get('Content-Type')).toBe(XLSX_TYPE)
    expect(response.headers.get('Content-Disposition')).toBe('attachment; filename="accounts.xlsx"')
    expect(response.headers.get('Cache-Control')).toBe('private, no-store')
  })
})
