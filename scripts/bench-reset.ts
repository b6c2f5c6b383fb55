/**
 * `npm run bench:reset`: the 'Forgot password?' action's timing for an email with an account and one
 * without, through the store's own code (rate limits, Better Auth, the outbox and its worker writing each
 * mail to a folder, as a store without SMTP_URL does) on the embedded database. The answer must not tell
 * whether the account exists, by its words or by its time: it does the same work either way and takes at
 * least RESET_REQUEST_FLOOR_MS (password-reset.server.ts). Prints p50/p90/p99 of each, and of that work alone,
 * interleaved so that drift of the machine hits both alike, and the machine's load. Asserts only the outcomes.
 *
 * `-- --load N` runs N busy loops (threads spinning on a core each) beside the store for the whole run: the
 * CPU pressure under which a probe saw the two paths drift apart (issue 28: p50 402 against 348 ms at load 12).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import { RouterContextProvider } from 'react-router'
import { register } from '#app/features/identity/account.server.ts'
import {
  queueResetLink,
  requestPasswordReset,
  RESET_REQUEST_FLOOR_MS,
} from '#app/features/identity/password-reset.server.ts'
import { appContext } from '#app/server/context.server.ts'
import { openDatabase } from '#app/server/db/database.server.ts'
import { emailOutbox, rateLimits } from '#app/server/db/schema/index.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createMailer } from '#app/server/mail.server.ts'
import { startOutboxWorker } from '#app/server/outbox.server.ts'
import { createStoreServices } from '#app/services.server.ts'
import { parseCommandLine } from './drills/options.ts'

const options = parseCommandLine({
  usage: 'npm run bench:reset --',
  summary: "The 'Forgot password?' action's time for a known and an unknown email; prints numbers.",
  options: {
    load: { type: 'number', value: 'N', help: 'N busy loops (one core each) beside the store (default 0)' },
    runs: { type: 'number', value: 'N', help: 'measured runs of each case (default 60)' },
  },
})
const LOAD = options.load ?? 0
const RUNS = options.runs ?? 60
if (!Number.isInteger(LOAD) || LOAD < 0 || LOAD > 16 || !Number.isInteger(RUNS) || RUNS < 1) {
  console.error('--load: 0 to 16 busy loops; --runs: a whole number of runs above 0')
  process.exit(2)
}
const EMAIL = 'bench.reader@example.com'
const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')

const logger = createLogger('silent')
const outboxDir = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-bench-reset-'))
const database = await openDatabase({ kind: 'pglite' })
await database.migrate()
const env = parseEnv({})
const mailer = createMailer({ from: env.MAIL_FROM, outboxDir, logger })
const outbox = startOutboxWorker({ db: database.db, mailer, logger })
const services = createStoreServices({
  db: database.db,
  env,
  authSecret: 'bench-secret-that-is-long-enough-0123456789',
  logger,
  kickOutbox: outbox.kick,
})
const visit = () => {
  const context = new RouterContextProvider()
  context.set(appContext, { ...services, clientIp: '10.0.0.1' })
  return { request: new Request('http://localhost/forgot-password', { method: 'POST' }), context }
}
const form = (email: string) => {
  const data = new FormData()
  data.set('email', email)
  data.set('password', 'correct horse battery staple')
  return data
}
const registered = await register(visit(), form(EMAIL))
if (!registered.ok) throw new Error('could not register the bench account')

/** Mails for the bench account that the worker has sent (the verification mail of its registration aside). */
const resetMailsSent = async () =>
  (await database.db.select({ kind: emailOutbox.kind, sentAt: emailOutbox.sentAt }).from(emailOutbox)).filter(
    (mail) => mail.kind === 'reset-password' && mail.sentAt,
  ).length

// Busy loops on their own threads: they take cores from the store as other processes on the machine would.
const busy = Array.from({ length: LOAD }, () => new Worker('for (;;) {}', { eval: true }))
console.log(`load average before: ${loadAverage()} (${os.cpus().length} cores), busy loops: ${LOAD}`)

const cases = { 'known email': EMAIL, 'unknown email': 'nobody.here@example.com' }
const samples = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]))
const works = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]))
let expectedResetMails = 0
try {
  for (let run = 0; run < RUNS + 5; run++) {
    for (const [name, email] of Object.entries(cases)) {
      // The limits (3 an hour per address) are not what is measured.
      await database.db.delete(rateLimits)
      const started = performance.now()
      const result = await requestPasswordReset(visit(), form(email))
      const elapsed = performance.now() - started
      if (!result.ok) throw new Error(`${name}: refused with ${result.status}`)
      // The work the floor must cover, timed alone: the token and the mail, written or not.
      const working = performance.now()
      await queueResetLink(database.db, email, env.publicUrl)
      const work = performance.now() - working
      if (email === EMAIL) expectedResetMails += 2
      // The first runs warm up.
      if (run >= 5) {
        samples.get(name)!.push(elapsed)
        works.get(name)!.push(work)
      }
    }
  }
  // Every known request was mailed, every unknown one was not: the worker catches up within seconds.
  const deadline = Date.now() + 60_000
  while ((await resetMailsSent()) < expectedResetMails && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 200))
  const sent = await resetMailsSent()
  if (sent !== expectedResetMails) throw new Error(`${sent} reset mails sent, ${expectedResetMails} expected`)
} finally {
  await Promise.all(busy.map((worker) => worker.terminate()))
}

const percentile = (values: number[], p: number) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}
console.log(
  `'Forgot password?' action, ${RUNS} runs each (PGlite in memory, outbox worker on, floor ${RESET_REQUEST_FLOOR_MS} ms, ${LOAD} busy loops):`,
)
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
for (const [name, values] of samples) {
  const at = (p: number) => percentile(values, p).toFixed(1).padStart(6)
  console.log(
    `  ${name.padEnd(14)} p50 ${at(50)} ms   p90 ${at(90)} ms   p99 ${at(99)} ms   mean ${mean(values).toFixed(1).padStart(6)} ms`,
  )
}
console.log('  the work the floor covers (queueResetLink: the token and the mail, written or not), alone:')
for (const [name, values] of works) {
  const at = (p: number) => percentile(values, p).toFixed(1).padStart(6)
  const over = values.filter((value) => value > RESET_REQUEST_FLOOR_MS).length
  console.log(
    `  ${name.padEnd(14)} p50 ${at(50)} ms   p90 ${at(90)} ms   p99 ${at(99)} ms   mean ${mean(values).toFixed(1).padStart(6)} ms   past the floor: ${over}`,
  )
}
const [known, unknown] = [...samples.values()] as [number[], number[]]
const gap = (p: number) => (percentile(known, p) - percentile(unknown, p)).toFixed(1)
console.log(
  `  known − unknown: p50 ${gap(50)} ms, p90 ${gap(90)} ms, p99 ${gap(99)} ms, mean ${(mean(known) - mean(unknown)).toFixed(1)} ms`,
)
console.log(`load average after: ${loadAverage()}`)
await outbox.stop()
await database.close()
fs.rmSync(outboxDir, { recursive: true, force: true })
