/**
 * `npm run bench:password`: Better Auth's default password hash (scrypt N=16384, r=16, p=1 from
 * `better-auth/crypto`, exactly what `betterAuth()` uses when no hasher is given) against ours, Argon2id
 * m=19456 KiB, t=2, p=1 (`app/server/password.server.ts`, @node-rs/argon2). For each it prints:
 * - hash and verify time, p50/p99 of 30 sequential runs;
 * - 20 concurrent verifies (parallel logins), 5 rounds: throughput and per-login latency p50/p99;
 * - event-loop delay while verifies run (monitorEventLoopDelay): a hash on the main thread would stall every
 *   other request; a blocking `verifySync` is measured as a control, to show the monitor sees a block;
 * - how long a small gzip (what the compression middleware does per response) waits while the logins fill
 *   libuv's thread pool, where both hashes run;
 * - memory: peak RSS growth for one hash and for a full thread pool, each algorithm in a fresh child process.
 * Takes about 15 s on this 2-core machine; run it when the machine is otherwise idle. Prints numbers and
 * asserts nothing, except that the right password verifies and a wrong one does not.
 * Why it exists: issue 4, docs/decisions/006-password-hashing.md.
 */
import { fork } from 'node:child_process'
import os from 'node:os'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { promisify } from 'node:util'
import zlib from 'node:zlib'
import { verifySync } from '@node-rs/argon2'
import { hashPassword as scryptHash, verifyPassword as scryptVerify } from 'better-auth/crypto'
import {
  ARGON2_MEMORY_KIB,
  ARGON2_PARALLELISM,
  ARGON2_TIME_COST,
  hashPassword as argon2Hash,
  verifyPassword as argon2Verify,
} from '#app/server/password.server.ts'

const SEQUENTIAL_RUNS = 30
const CONCURRENCY = 20
const ROUNDS = 5
const PASSWORD = 'correct horse battery staple'
/** Timer resolution of the event-loop monitor; its samples are this interval plus any delay. */
const ELD_RESOLUTION_MS = 1
const threadPoolSize = Number(process.env.UV_THREADPOOL_SIZE ?? 4)

interface Hasher {
  hash: (password: string) => Promise<string>
  verify: (hash: string, password: string) => Promise<boolean>
}

const hashers = {
  'scrypt (Better Auth default)': {
    hash: scryptHash,
    verify: (hash, password) => scryptVerify({ hash, password }),
  },
  [`Argon2id m=${ARGON2_MEMORY_KIB},t=${ARGON2_TIME_COST},p=${ARGON2_PARALLELISM}`]: {
    hash: argon2Hash,
    verify: (hash, password) => argon2Verify({ hash, password }),
  },
} satisfies Record<string, Hasher>
type HasherName = keyof typeof hashers

function percentile(values: number[], p: number) {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN
}

const loadAverage = () =>
  os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')
const ms = (value: number) => `${value.toFixed(1)} ms`
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`

/** Runs `work` with the event-loop monitor on; returns its result and the worst and p99 stall in ms. */
async function withEventLoopDelay<T>(work: () => Promise<T>) {
  const histogram = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS })
  histogram.enable()
  const result = await work()
  histogram.disable()
  const stall = (ns: number) => Math.max(0, ns / 1e6 - ELD_RESOLUTION_MS)
  return { result, maxStall: stall(histogram.max), p99Stall: stall(histogram.percentile(99)) }
}

async function time<T>(work: () => Promise<T>) {
  const started = performance.now()
  const result = await work()
  return { result, ms: performance.now() - started }
}

const gzip = promisify(zlib.gzip)
const page = Buffer.from('<li class="book">Designing Data-Intensive Applications</li>\n'.repeat(300))

async function measure(hasher: Hasher) {
  const stored = await hasher.hash(PASSWORD)
  for (let i = 0; i < 3; i++) await hasher.verify(await hasher.hash(PASSWORD), PASSWORD) // warm-up
  if ((await hasher.verify(stored, 'wrong password')) !== false) throw new Error('a wrong password verified')

  const hashTimes: number[] = []
  for (let i = 0; i < SEQUENTIAL_RUNS; i++) hashTimes.push((await time(() => hasher.hash(PASSWORD))).ms)

  const verifyTimes: number[] = []
  const sequential = await withEventLoopDelay(async () => {
    for (let i = 0; i < SEQUENTIAL_RUNS; i++) {
      const { result, ms } = await time(() => hasher.verify(stored, PASSWORD))
      if (!result) throw new Error('the right password did not verify')
      verifyTimes.push(ms)
    }
  })

  const latencies: number[] = []
  const gzipWaits: number[] = []
  let wall = 0
  const concurrent = await withEventLoopDelay(async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now()
      const logins = Array.from({ length: CONCURRENCY }, async () => {
        if (!(await hasher.verify(stored, PASSWORD))) throw new Error('the right password did not verify')
        latencies.push(performance.now() - started)
      })
      // Queued behind the logins, as a response being compressed during a burst of logins would be.
      const compressed = time(() => gzip(page)).then(({ ms }) => gzipWaits.push(ms))
      await Promise.all([...logins, compressed])
      wall += performance.now() - started
    }
  })

  return {
    'hash p50': ms(percentile(hashTimes, 50)),
    'hash p99': ms(percentile(hashTimes, 99)),
    'verify p50': ms(percentile(verifyTimes, 50)),
    'verify p99': ms(percentile(verifyTimes, 99)),
    'verify: worst event-loop stall': ms(sequential.maxStall),
    [`${CONCURRENCY} concurrent verifies: logins/s`]: ((CONCURRENCY * ROUNDS) / (wall / 1000)).toFixed(1),
    [`${CONCURRENCY} concurrent: latency p50`]: ms(percentile(latencies, 50)),
    [`${CONCURRENCY} concurrent: latency p99`]: ms(percentile(latencies, 99)),
    [`${CONCURRENCY} concurrent: worst event-loop stall`]: ms(concurrent.maxStall),
    [`${CONCURRENCY} concurrent: event-loop stall p99`]: ms(concurrent.p99Stall),
    [`${CONCURRENCY} concurrent: 18 KiB gzip waits (max)`]: ms(Math.max(...gzipWaits)),
  }
}

/**
 * Peak RSS growth while `count` hashes run at once, sampled every millisecond (the event loop is free while
 * they run). Called in a fresh child process per measurement: memory a previous hash freed may stay in the
 * allocator's arenas and would hide the next one's.
 */
async function measureMemoryInChild(name: HasherName, count: number) {
  await gzip(page) // starts libuv's thread-pool threads, so their stacks are in the baseline
  const baseline = process.memoryUsage.rss()
  let peak = baseline
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 1)
  await Promise.all(Array.from({ length: count }, () => hashers[name].hash(PASSWORD)))
  clearInterval(sampler)
  return peak - baseline
}

function memoryFromChild(name: HasherName, count: number) {
  return new Promise<number>((resolve, reject) => {
    const child = fork(import.meta.filename, ['--memory', name, String(count)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    child.once('message', (bytes) => resolve(Number(bytes)))
    child.once('exit', (code) => code !== 0 && reject(new Error(`memory child for ${name} exited ${code}`)))
    child.once('error', reject)
  })
}

const memoryArg = process.argv.indexOf('--memory')
if (memoryArg !== -1) {
  const name = process.argv[memoryArg + 1] as HasherName
  process.send?.(await measureMemoryInChild(name, Number(process.argv[memoryArg + 2])))
  process.exit(0)
}

console.log(
  `Node ${process.version}, ${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ` +
    `libuv thread pool ${threadPoolSize}, load average ${loadAverage()}`,
)
const started = performance.now()

const idle = await withEventLoopDelay(() => new Promise((resolve) => setTimeout(resolve, 500)))
const idleGzip = percentile(
  await Promise.all(Array.from({ length: 5 }, async () => (await time(() => gzip(page))).ms)),
  50,
)
console.log(`idle: worst event-loop stall ${ms(idle.maxStall)}, 18 KiB gzip ${ms(idleGzip)}`)

const table: Record<string, Record<string, string>> = {}
for (const [name, hasher] of Object.entries(hashers) as [HasherName, Hasher][]) {
  const numbers: Record<string, string> = await measure(hasher)
  numbers['memory: RSS growth, 1 hash'] = mib(await memoryFromChild(name, 1))
  // Logins beyond the pool's size wait in its queue, so a full pool is the most a burst of logins can take.
  numbers[`memory: RSS growth, ${threadPoolSize} at once`] = mib(await memoryFromChild(name, threadPoolSize))
  for (const [metric, value] of Object.entries(numbers)) (table[metric] ??= {})[name] = value
}

// Control: the same Argon2id verify on the main thread. The monitor must report a stall of about its duration.
const control = await argon2Hash(PASSWORD)
const blocking = await withEventLoopDelay(async () => {
  for (let i = 0; i < 5; i++) {
    verifySync(control, PASSWORD)
    await new Promise((resolve) => setImmediate(resolve))
  }
})

console.table(table)
console.log(
  `control, Argon2id verifySync on the main thread: worst event-loop stall ${ms(blocking.maxStall)}`,
)
console.log(
  `theoretical memory per hash: scrypt 128·N·r = ${mib(128 * 16384 * 16)}, Argon2id m = ${mib(ARGON2_MEMORY_KIB * 1024)}`,
)
console.log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s, load average ${loadAverage()}`)
