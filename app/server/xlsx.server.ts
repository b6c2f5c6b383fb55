/**
 * XLSX workbooks for the store owner's spreadsheet, the smallest valid SpreadsheetML package (ECMA-376): a
 * workbook, its sheets, one stylesheet, zipped with jszip (already a dependency for EPUBs; no spreadsheet
 * library for what is a few XML files). Text is written as inline strings, which a spreadsheet never runs as a
 * formula (no CSV-injection defusing needed, nor wanted: the text stays as typed). Numbers are numbers; a
 * `{ cents }` cell is money, a number of major units shown with two decimals (as csv.server.ts writes it). The
 * first row is bold and frozen.
 *
 * Streamed: each sheet's rows are read one batch at a time as the zip is written, one sheet after the other,
 * so a long sheet never sits in memory.
 */
import { Readable } from 'node:stream'
import JSZip from 'jszip'
import { centsText } from './csv.server.ts'

export type XlsxCell = string | number | null | { cents: number }

export type XlsxSheet = {
  /** At most 31 characters, none of : \ / ? * [ ] (spreadsheet rules). */
  name: string
  header: readonly string[]
  rows: AsyncIterable<ReadonlyArray<readonly XlsxCell[]>> | Iterable<ReadonlyArray<readonly XlsxCell[]>>
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
const RELATIONSHIPS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const PACKAGE_RELATIONSHIPS = 'http://schemas.openxmlformats.org/package/2006/relationships'
const XML_HEADER = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
const SHEET_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml'

/** Style indexes in styles.xml's cellXfs. */
const STYLE = { amount: 1, header: 2 } as const

const STYLES = `${XML_HEADER}<styleSheet xmlns="${MAIN}"><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="2" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`

/** Characters XML 1.0 cannot hold at all (a stray control character in a title would break the file). */
// eslint-disable-next-line no-control-regex -- these are the characters to remove.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g

export function xmlText(value: string): string {
  return value
    .replace(NOT_XML, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
}

/** 0 → 'A', 25 → 'Z', 26 → 'AA'. */
export function columnName(index: number): string {
  let name = ''
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name
  return name
}

function cellXml(value: XlsxCell, ref: string, style?: number): string {
  const s = style ? ` s="${style}"` : ''
  if (value === null) return ''
  if (typeof value === 'object')
    return Number.isSafeInteger(value.cents)
      ? `<c r="${ref}" s="${STYLE.amount}"><v>${centsText(value.cents)}</v></c>`
      : ''
  if (typeof value === 'number') return Number.isFinite(value) ? `<c r="${ref}"${s}><v>${value}</v></c>` : ''
  return `<c r="${ref}" t="inlineStr"${s}><is><t xml:space="preserve">${xmlText(value)}</t></is></c>`
}

export function rowXml(cells: readonly XlsxCell[], rowNumber: number, style?: number): string {
  return `<row r="${rowNumber}">${cells.map((cell, index) => cellXml(cell, `${columnName(index)}${rowNumber}`, style)).join('')}</row>`
}

async function* sheetXml(sheet: XlsxSheet): AsyncGenerator<Buffer> {
  yield* [
    `${XML_HEADER}<worksheet xmlns="${MAIN}"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews><sheetData>${rowXml(sheet.header, 1, STYLE.header)}`,
  ].map(utf8)
  let rowNumber = 1
  for await (const batch of sheet.rows) {
    if (batch.length === 0) continue
    yield utf8(batch.map((cells) => rowXml(cells, ++rowNumber)).join(''))
  }
  yield utf8('</sheetData></worksheet>')
}

const utf8 = (text: string) => Buffer.from(text, 'utf8')

const SHEET_NAME = /^[^:\\/?*[\]]{1,31}$/

/** The workbook as a stream of zip bytes. */
export function xlsxStream(sheets: readonly XlsxSheet[]): ReadableStream<Uint8Array> {
  for (const sheet of sheets)
    if (!SHEET_NAME.test(sheet.name)) throw new Error(`'${sheet.name}' cannot name a sheet`)
  const zip = new JSZip()
  const files = sheets.map((_, index) => `worksheets/sheet${index + 1}.xml`)
  zip.file(
    '[Content_Types].xml',
    `${XML_HEADER}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>${files.map((file) => `<Override PartName="/xl/${file}" ContentType="${SHEET_TYPE}"/>`).join('')}</Types>`,
  )
  zip.file(
    '_rels/.rels',
    `${XML_HEADER}<Relationships xmlns="${PACKAGE_RELATIONSHIPS}"><Relationship Id="rId1" Type="${RELATIONSHIPS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  )
  zip.file(
    'xl/workbook.xml',
    `${XML_HEADER}<workbook xmlns="${MAIN}" xmlns:r="${RELATIONSHIPS}"><sheets>${sheets.map((sheet, index) => `<sheet name="${xmlText(sheet.name)}" sheetId="${index + 1}" r:id="rId${index + 1}"/>`).join('')}</sheets></workbook>`,
  )
  zip.file(
    'xl/_rels/workbook.xml.rels',
    `${XML_HEADER}<Relationships xmlns="${PACKAGE_RELATIONSHIPS}">${files.map((file, index) => `<Relationship Id="rId${index + 1}" Type="${RELATIONSHIPS}/worksheet" Target="${file}"/>`).join('')}<Relationship Id="rId${files.length + 1}" Type="${RELATIONSHIPS}/styles" Target="styles.xml"/></Relationships>`,
  )
  zip.file('xl/styles.xml', STYLES)
  // Each sheet a Node stream that jszip reads only when it reaches that file: one batch of rows at a time.
  sheets.forEach((sheet, index) => zip.file(`xl/${files[index]}`, Readable.from(sheetXml(sheet))))
  const zipped = zip.generateNodeStream({ type: 'nodebuffer', streamFiles: true, compression: 'DEFLATE' })
  // jszip's stream is an old-style one; wrapping it gives it backpressure and a web stream to answer with.
  return Readable.toWeb(new Readable().wrap(zipped)) as unknown as ReadableStream<Uint8Array>
}

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'

/** A workbook as a download: never cached (it holds private figures), saved under `filename`. */
export function xlsxResponse(body: ReadableStream<Uint8Array>, filename: string): Response {
  return new Response(body, {
    headers: {
      'Content-Type': XLSX_TYPE,
      'Content-Disposition': `attachment; filename="${filename}"`,
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}
