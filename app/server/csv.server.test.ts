import { describe, expect, test } from 'vitest'
import { csvCell, csvResponse, csvRow, csvStream, csvText } from './csv.server.ts'

describe('csvCell', () => {
  test('quotes, commas and line breaks are quoted; formulas are defused; null is empty', () => {
    expect(csvCell('plain')).toBe('plain')
    expect(csvCell('a, b')).toBe('"a, b"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
    expect(csvCell('two\nlines')).toBe('"two\nlines"')
    expect(csvCell('two\r\nlines')).toBe('"two\r\nlines"')
    for (const formula of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx'])
      expect(csvCell(formula)).toBe(`'${formula}`)
    expect(csvCell('\rx')).toBe(`"'\rx"`)
    expect(csvCell('=HYPERLINK("http://evil"), x')).toBe(`"'=HYPERLINK(""http://evil""), x"`)
    expect(csvCell(null)).toBe('')
  })

  test('numbers are written as they are, a negative one too', () => {
    expect(csvCell(42)).toBe('42')
    expect(csvCell(-3)).toBe('-3')
    // Money: two decimals, a refund's minus sign kept (it is a number, not text that could be a formula).
    expect([1250, 5, 0, -300, -1, 123456789].map((cents) => csvCell({ cents }))).toEqual([
      '12.50',
      '0.05',
      '0.00',
      '-3.00',
      '-0.01',
      '1234567.89',
    ])
    expect(csvRow(['a', 1, null])).toBe('a,1,\r\n')
  })
})

describe('csvText', () => {
  test('a byte order mark, the header, then one CRLF line per row', () => {
    expect(
      csvText(
        ['day', 'orders'],
        [
          ['2025-01-01', 2],
          ['2025-01-02', 0],
        ],
      ),
    ).toBe('\uFEFFday,orders\r\n2025-01-01,2\r\n2025-01-02,0\r\n')
  })
})

describe('csvStream', () => {
  const decode = (chunk: Uint8Array | undefined) =>
    new TextDecoder('utf-8', { ignoreBOM: true }).decode(chunk)

  test('the header at once, then a batch per read: nothing is produced before it is asked for', async () => {
    const produced: number[] = []
    async function* batches() {
      for (const batch of [
        [['a', 1]],
        [],
        [
          ['b', 2],
          ['c', 3],
        ],
      ]) {
        produced.push(batch.length)
        yield batch
      }
    }
    const reader = csvStream(['name', 'n'], batches()).getReader()
    expect(decode((await reader.read()).value)).toBe('\uFEFFname,n\r\n')
    expect(decode((await reader.read()).value)).toBe('a,1\r\n')
    expect(produced).toEqual([1])
    // An empty batch is skipped: the read waits for the next one.
    expect(decode((await reader.read()).value)).toBe('b,2\r\nc,3\r\n')
    expect((await reader.read()).done).toBe(true)
    expect(produced).toEqual([1, 0, 2])
  })

  test('a reader that goes away stops the producer', async () => {
    let finished = false
    async function* batches() {
      try {
        for (let index = 0; ; index++) yield [[index]]
      } finally {
        finished = true
      }
    }
    const reader = csvStream(['n'], batches()).getReader()
    await reader.read()
    await reader.read()
    await reader.cancel()
    expect(finished).toBe(true)
  })
})

test('csvResponse: a private, uncached attachment', async () => {
  const response = csvResponse(csvText(['a'], [['é']]), 'figures.csv')
  expect(response.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
  expect(response.headers.get('Content-Disposition')).toBe('attachment; filename="figures.csv"')
  expect(response.headers.get('Cache-Control')).toBe('private, no-store')
  const bytes = new Uint8Array(await response.arrayBuffer())
  expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
})
