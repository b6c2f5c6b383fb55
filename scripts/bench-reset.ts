/**
 * `npm run bench:reset`: the 'Forgot password?' action's timing for an email with an account and one
 * without, through the store's own code (rate limits, Better Auth, the outbox) on the embedded database.
 * The answer must not tell whether the account exists, by its words or by its time: the action takes at
 * least RESET_REQUEST_FLOOR_MS either way (password-reset.server.ts). Prints p50/p99 of 60 runs each,
 * interleaved so that drift of the machine hits both alike. Asserts only the outcomes.
 */
import { performance } from 'node:perf_hooks'
import { RouterContextProvider } from 'react-router'
import { register } from '#app/features/identity/account.server.ts'
import { requestPasswordReset, RESET_REQUEST_FLOOR_MS } from '#app/features/identity/password-reset.server.ts'
import { appContext } from '#app/server/context.server.ts'
import { openDatabase } from '#app/server/db/database.server.ts'
import { emailOutbox, rateLimits } from '#app/server/db/schema/index.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createStoreServices } from '#app/services.server.ts'

const RUNS = 60
const EMAIL = 'bench.reader@example.com'

const database = await openDatabase({ kind: 'pglite' })
await database.migrate()
const services = createStoreServices({
  db: database.db,
  env: parseEnv({}),
  authSecret: 'bench-secret-that-is-long-enough-0123456789',
  logger: createLogger('silent'),
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

const cases = { 'known email': EMAIL, 'unknown email': 'nobody.here@example.com' }
const samples = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]))

for (let run = 0; run < RUNS + 5; run++) {
  for (const [name, email] of Object.entries(cases)) {
    // The limits (3 an hour per address) and the queued mails are not what is measured.
    await database.db.delete(rateLimits)
    await database.db.delete(emailOutbox)
    const started = performance.now()
    const result = await requestPasswordReset(visit(), form(email))
    const elapsed = performance.now() - started
    if (!result.ok) throw new Error(`${name}: refused with ${result.status}`)
    const mailed = await database.db.select({ to: emailOutbox.to }).from(emailOutbox)
    if (mailed.length !== (email === EMAIL ? 1 : 0)) throw new Error(`${name}: ${mailed.length} mails queued`)
    if (run >= 5) samples.get(name)!.push(elapsed) // the first runs warm up
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}
console.log(
  `'Forgot password?' action, ${RUNS} runs each (PGlite in memory, floor ${RESET_REQUEST_FLOOR_MS} ms):`,
)
for (const [name, values] of samples) {
  console.log(
    `  ${name.padEnd(14)} p50 ${percentile(values, 50).toFixed(1).padStart(6)} ms   p99 ${percentile(values, 99).toFixed(1).padStart(6)} ms`,
  )
}
await database.close()
