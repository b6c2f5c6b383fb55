import fs from 'node:fs'
import path from 'node:path'
import autocannon from 'autocannon'
import { addToCart, requireUserCart, setCartCoupon } from '#app/features/cart/cart.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { coupons } from '#app/server/db/schema/index.server.ts'
import { createReader } from '#harness/factories/buyers.ts'
import { spawnStore, waitUntilReady } from '#harness/store-process.ts'

/**
 * `npm run bench -- --checkout` (issue 30): the checkout page of a signed-in reader with three books in the
 * cart, without and with a 10 % coupon on it — the price computation, the coupon's lookup and its per-account
 * checks are what differ. Measured in turns (plain, coupon, plain, coupon, …) on one store, so the machine's
 * noise falls on both alike; the medians and their ratio are printed. The target: within 10 %.
 */
export async function benchCheckout(options: {
  seededDataDir: () => Promise<{ dataDir: string; database: { db: Db; close(): Promise<void> } }>
  authSecret: string
  seconds: number
  rounds?: number
}) {
  const { dataDir, database } = await options.seededDataDir()
  const cookies: Record<'plain' | 'coupon', string> = { plain: '', coupon: '' }
  try {
    const books = (await listBooks(database.db)).slice(0, 3)
    await database.db
      .insert(coupons)
      .values({ code: 'BENCH10', kind: 'percent', value: 10, perAccountLimit: 1, firstPurchaseOnly: true })
    for (const kind of ['plain', 'coupon'] as const) {
      const reader = await createReader(database.db, { email: `bench-${kind}@example.com` })
      const cartId = await requireUserCart(database.db, reader.userId)
      for (const book of books) await addToCart(database.db, cartId, book.id)
      if (kind === 'coupon') await setCartCoupon(database.db, cartId, 'BENCH10')
      cookies[kind] = reader.cookie
    }
  } finally {
    await database.close()
  }
  const store = await spawnStore(
    { LOG_LEVEL: 'info', DATA_DIR: dataDir, BETTER_AUTH_SECRET: options.authSecret },
    { discardOutput: true },
  )
  try {
    await waitUntilReady(store)
    for (const kind of ['plain', 'coupon'] as const) {
      const page = await (await fetch(`${store.url}/checkout`, { headers: { Cookie: cookies[kind] } })).text()
      const shows = page.includes('BENCH10') === (kind === 'coupon')
      if (!page.includes('Your order') || !shows)
        throw new Error(`the ${kind} checkout page is not what it should be`)
    }
    const results: Record<'plain' | 'coupon', { rps: number; p99: number }[]> = { plain: [], coupon: [] }
    for (let round = 0; round < (options.rounds ?? 3); round++) {
      for (const kind of ['plain', 'coupon'] as const) {
        const run = (duration: number) =>
          autocannon({
            url: `${store.url}/checkout`,
            connections: 10,
            duration,
            headers: { Cookie: cookies[kind], Accept: 'text/html' },
          })
        await run(1)
        const result = await run(options.seconds)
        if (result.non2xx || result.errors)
          throw new Error(`${kind}: ${result.non2xx} non-2xx, ${result.errors} errors`)
        results[kind].push({ rps: result.requests.average, p99: result.latency.p99 })
      }
    }
    const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!
    const rows = (['plain', 'coupon'] as const).map((kind) => ({
      checkout: kind === 'plain' ? 'no coupon' : 'with a 10 % coupon',
      'req/s (median)': Math.round(median(results[kind].map((r) => r.rps))),
      'p99 ms (median)': median(results[kind].map((r) => r.p99)),
      rounds: results[kind].map((r) => Math.round(r.rps)).join(' / '),
    }))
    console.table(rows)
    const ratio = median(results.coupon.map((r) => r.rps)) / median(results.plain.map((r) => r.rps))
    console.log(`with a coupon / without: ${(ratio * 100).toFixed(1)} % of the throughput (target ≥ 90 %)`)
  } finally {
    await store.stop()
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true })
  }
}
