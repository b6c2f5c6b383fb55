/**
 * `npm run bench:search`: search latency on a catalogue of 100,000 generated books (plus the seed's 7) in
 * embedded PGlite. The catalogue is built once into .tmp/bench-search (`--rebuild` builds it again) with the
 * store's own migrations, then the store's own query functions (suggestBooks, searchBooks) are timed for
 * one-letter, two-letter, common-word, misspelt and rare-word queries. Prints p50/p99; asserts nothing.
 * Targets (issue 3): suggestions p99 ≤ 10 ms, results page p99 ≤ 50 ms. The folder takes about 1.2 GB
 * (mostly write-ahead log from loading, which PGlite keeps up to max_wal_size): delete it when done.
 */
import { performance } from 'node:perf_hooks'
import { searchBooks, suggestBooks } from '#app/features/search/search.server.ts'
import { openBenchCatalogue } from './bench-catalogue.ts'

const RUNS_PER_QUERY = 60

const queries = {
  '1 letter': ['p', 'd', 'm', 'z'],
  '2 letters': ['py', 'go', 'da', 'co'],
  'common word': ['python', 'data', 'guide', 'systems', 'practical'],
  typo: ['pyhton', 'algoritms', 'djnago', 'kubernetse', 'databse'],
  'rare word': ['paxos', 'voronoi', 'treaps', 'kowalczyk', 'fenwick'],
} satisfies Record<string, string[]>

type Row = Record<string, string | number>

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN
}

async function time(fn: () => Promise<unknown>) {
  const start = performance.now()
  await fn()
  return performance.now() - start
}

const database = await openBenchCatalogue()
try {
  const rows: Row[] = []
  const { db } = database
  // Warm up: the first runs plan each query shape, read the index pages and let V8 compile the code.
  for (let round = 0; round < 3; round++) {
    for (const q of Object.values(queries).flat()) {
      await suggestBooks(db, q)
      await searchBooks(db, q)
    }
  }
  for (const [kind, list] of Object.entries(queries)) {
    const suggestTimes: number[] = []
    const searchTimes: number[] = []
    const found: string[] = []
    for (const q of list) {
      const results = await searchBooks(db, q)
      found.push(
        `${q}${results.correctedFrom ? `→${results.query}` : ''}: ${results.more ? `>${results.total}` : results.total}`,
      )
      for (let run = 0; run < RUNS_PER_QUERY; run++) {
        suggestTimes.push(await time(() => suggestBooks(db, q)))
        searchTimes.push(await time(() => searchBooks(db, q)))
      }
    }
    suggestTimes.sort((a, b) => a - b)
    searchTimes.sort((a, b) => a - b)
    rows.push({
      queries: kind,
      'suggest p50 ms': Number(percentile(suggestTimes, 50).toFixed(2)),
      'suggest p99 ms': Number(percentile(suggestTimes, 99).toFixed(2)),
      'results p50 ms': Number(percentile(searchTimes, 50).toFixed(2)),
      'results p99 ms': Number(percentile(searchTimes, 99).toFixed(2)),
      'results found': found.join(', '),
    })
  }
  console.table(rows)
  const worst = (key: string) => Math.max(...rows.map((row) => Number(row[key])))
  console.log(
    `worst p99: suggestions ${worst('suggest p99 ms')} ms (target ≤ 10), results page ${worst('results p99 ms')} ms (target ≤ 50)`,
  )
} finally {
  await database.close()
}
