import type { AddressInfo } from 'node:net'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createStoreServices } from '#app/services.server.ts'
import { createHttpApp } from '#server/http.ts'
import { createTestDatabase } from '#tests/db.ts'
import { routesBuild } from '#tests/route-build.ts'

/**
 * The store's HTTP host in this process, on a fresh database and a free port, for what it answers before
 * React Router (health, headers, cross-site checks, body limits). Its build holds the routes and what they
 * declare to the host (tests/route-build.ts), not React Router's entry: a request that reaches the router
 * fails with 500.
 */
export async function startHttpApp(env: Record<string, string> = {}) {
  const database = await createTestDatabase()
  const services = createStoreServices({
    db: database.db,
    env: parseEnv(env),
    authSecret: 'test-secret-that-is-long-enough-0123456789',
    logger: createLogger('silent'),
  })
  const app = createHttpApp({
    database,
    services,
    build: await routesBuild(),
  })
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  return {
    database,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.close()
      await services.analytics.stop()
      await database.dispose()
    },
  }
}
