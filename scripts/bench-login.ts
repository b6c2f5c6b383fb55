/**
 * `npm run bench:login`: the login action's timing for a right password, a wrong one and an unknown email,
 * through the store's own code (rate limits, Better Auth, Argon2id) on the embedded database. A failed
 * login must not tell whether the account exists, by its words or by its time: Better Auth hashes the given
 * password when the email is unknown, so both failures cost one Argon2id computation. Prints p50/p99 of
 * 60 runs each, interleaved so that drift of the machine hits all three alike. Asserts only the outcomes.
 */
import { performance } from 'node:perf_hooks'
import { RouterContextProvider } from 'react-router'
import { logIn, register } from '#app/features/identity/account.server.ts'
import { appContext } from '#app/server/context.server.ts'
import { openDatabase } from '#app/server/db/database.server.ts'
import { rateLimits } from '#app/server/db/schema/index.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createStoreServices } from '#app/services.server.ts'

const RUNS = 60
const EMAIL = 'bench.reader@example.com'
const PASSWORD = 'correct horse battery staple'

const database = await openDatabase({ kind: 'pglite' })
await database.migrate()
const services = createStoreServices({
  db: database.db,
  env: parseEnv({}),
  authSecret: 'bench-secret-that-is-long-enough-0123456789',
  logger: createLogger('silent'),
})
let address = 0
// Every attempt from its own address: the rate limits are not what is measured.
const visit = () => {
  const context = new RouterContextProvider()
  context.set(appContext, { ...services, clientIp: `10.0.${Math.floor(++address / 250)}.${address % 250}` })
  return { request: new Request('http://localhost/login', { method: 'POST' }), context }
}
const form = (email: string, password: string) => {
  const data = new FormData()
  data.set('email', email)
  data.set('password', password)
  return data
}
const registered = await register(visit(), form(EMAIL, PASSWORD))
if (!registered.ok) throw new Error('could not register the bench account')

const cases = {
  'right password': { form: form(EMAIL, PASSWORD), status: 'ok' },
  'wrong password': { form: form(EMAIL, 'not the right passphrase'), status: 401 },
  'unknown email': { form: form('nobody.here@example.com', PASSWORD), status: 401 },
} as const
const samples = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]))

for (let run = 0; run < RUNS + 5; run++) {
  for (const [name, { form: fields, status }] of Object.entries(cases)) {
    // Nor is the slow-down of an account's failed logins from any addresses (the unknown email never succeeds).
    await database.db.delete(rateLimits)
    const started = performance.now()
    const result = await logIn(visit(), fields)
    const elapsed = performance.now() - started
    const outcome = result.ok ? 'ok' : result.status
    if (outcome !== status) throw new Error(`${name}: expected ${status}, got ${outcome}`)
    if (run >= 5) samples.get(name)!.push(elapsed) // the first runs warm up
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}
console.log(`login action, ${RUNS} runs each (PGlite in memory, Argon2id m=19 MiB t=2 p=1):`)
for (const [name, values] of samples) {
  console.log(
    `  ${name.padEnd(15)} p50 ${percentile(values, 50).toFixed(1).padStart(6)} ms   p99 ${percentile(values, 99).toFixed(1).padStart(6)} ms`,
  )
}
await database.close()
