/**
 * Issue 35: how close a page-cache hit comes to what this machine can serve at all. The cached `/`, fetched as
 * a first-time visitor gets it (status, headers and the very bytes, gzipped), is handed to a bare `node:http`
 * server in a process of its own (one process, as the store is), which answers every request with exactly
 * that; both are measured with the same autocannon settings, in turns (store, bare, store, bare), so the
 * machine's other load falls on both alike. Their ratio (store ÷ bare) is the figure; the CPU time per
 * request of each process is the steadier one on a shared machine. Target: ≥ 0.35.
 */
import { spawn } from 'node:child_process'
import http from 'node:http'
import os from 'node:os'
import autocannon from 'autocannon'
import { startNodeFlags, type StoreProcess } from '#harness/store-process.ts'
import { cpuMs } from './process-cpu.ts'

type CapturedResponse = { status: number; headers: string[]; body: Buffer }

export type CacheHitRound = {
  round: number
  'store req/s': number
  'bare req/s': number
  'store ÷ bare': string
  'store CPU µs/req': string
  'bare CPU µs/req': string
  'store p99 ms': number
  'bare p99 ms': number
  load: string
}

/** Set by Node itself on every answer, or framing that follows from the body: the bare server makes its own. */
const OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'])

/**
 * The bare server: reads the captured answer from stdin, prints its port, and answers every request with it.
 * Plain JavaScript, so that it runs as it is in a fresh `node`, without the store's TypeScript loader.
 */
const BARE_SERVER = `
import http from 'node:http'
let input = ''
for await (const chunk of process.stdin) input += chunk
const { status, headers, body } = JSON.parse(input)
const bytes = Buffer.from(body, 'base64')
const server = http.createServer((_req, res) => {
  res.writeHead(status, headers)
  res.end(bytes)
})
server.listen(0, '127.0.0.1', () => console.log(server.address().port))
process.once('SIGTERM', () => process.exit(0))
`

/** The answer as it came over the wire: no decoding (fetch would gunzip it). */
function capture(url: string, headers: Record<string, string>): Promise<CapturedResponse> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.rawHeaders, body: Buffer.concat(chunks) }),
        )
        res.on('error', reject)
      })
      .on('error', reject)
  })
}

async function startBareServer(answer: CapturedResponse) {
  const headers: string[] = []
  for (let index = 0; index < answer.headers.length; index += 2)
    if (!OWN_HEADERS.has(answer.headers[index]!.toLowerCase()))
      headers.push(answer.headers[index]!, answer.headers[index + 1]!)
  const child = spawn(process.execPath, [...startNodeFlags(), '--input-type=module', '-e', BARE_SERVER], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  child.stdin.end(JSON.stringify({ status: answer.status, headers, body: answer.body.toString('base64') }))
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()))
    child.once('exit', (code) => reject(new Error(`the bare node:http server exited (${code})`)))
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: async () => {
      child.kill('SIGTERM')
      await exited
    },
  }
}

async function load(url: string, headers: Record<string, string>, seconds: number, pid: number | undefined) {
  const run = (duration: number) => autocannon({ url, connections: 20, duration, headers })
  await run(2)
  const before = cpuMs(pid)
  const result = await run(seconds)
  const after = cpuMs(pid)
  const cpuPerRequest =
    before === undefined || after === undefined
      ? '–'
      : ((1000 * (after - before)) / result.requests.total).toFixed(0)
  return {
    rps: Math.round(result.requests.average),
    p99: result.latency.p99,
    cpuPerRequest,
    non2xx: result.non2xx,
  }
}

/**
 * `rounds` turns of: the store's cached `/`, then the bare server with its bytes. Throws unless the store's
 * answer is a page-cache hit, so that a change which stops caching cannot pass for a slower server.
 */
export async function compareCacheHitWithBareHttp(
  store: StoreProcess,
  options: { seconds: number; headers: Record<string, string>; rounds?: number },
): Promise<CacheHitRound[]> {
  const url = `${store.url}/`
  await capture(url, options.headers)
  const answer = await capture(url, options.headers)
  const cacheHeader = answer.headers.findIndex(
    (name, index) => index % 2 === 0 && /^x-page-cache$/i.test(name),
  )
  if (answer.status !== 200 || answer.headers[cacheHeader + 1] !== 'hit')
    throw new Error(`the cached / was not a page-cache hit: ${answer.status} ${answer.headers.join(' ')}`)
  const bare = await startBareServer(answer)
  const rounds: CacheHitRound[] = []
  try {
    for (let round = 1; round <= (options.rounds ?? 2); round++) {
      const cached = await load(url, options.headers, options.seconds, store.child.pid)
      const plain = await load(`${bare.url}/`, options.headers, options.seconds, bare.pid)
      if (cached.non2xx || plain.non2xx)
        throw new Error('non-2xx answers while comparing with bare node:http')
      rounds.push({
        round,
        'store req/s': cached.rps,
        'bare req/s': plain.rps,
        'store ÷ bare': (cached.rps / plain.rps).toFixed(3),
        'store CPU µs/req': cached.cpuPerRequest,
        'bare CPU µs/req': plain.cpuPerRequest,
        'store p99 ms': cached.p99,
        'bare p99 ms': plain.p99,
        load: os
          .loadavg()
          .map((value) => value.toFixed(2))
          .join(' '),
      })
    }
  } finally {
    await bare.stop()
  }
  return rounds
}

export function printCacheHitComparison(rounds: CacheHitRound[]) {
  const total = (column: 'store req/s' | 'bare req/s') =>
    rounds.reduce((sum, round) => sum + round[column], 0)
  console.log('cached / (first-time visitor) against bare node:http sending the same bytes (issue 35):')
  console.table(rounds)
  console.log(
    `store ÷ bare over all rounds: ${(total('store req/s') / total('bare req/s')).toFixed(3)} (target ≥ 0.35)`,
  )
}
