import type { Browser } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import type { Db } from '#app/server/db/database.server.ts'
import { startStoreWithAdmin, type StoreProcess } from '#harness/store-process.ts'
import { launchBrowser } from './browser.ts'

export type OwnStore = {
  browser: Browser
  store: StoreProcess
  /** The owner ADMIN_EMAILS makes an admin at start-up. */
  admin: { email: string; password: string }
}

/**
 * A store of the test file's own (what its tests do must not change the shared store's, or the other way
 * round) with an admin, and a Chromium: started before the file's tests, stopped after them. `prepare` puts
 * data in the database before the store starts.
 */
export function ownStoreWithAdmin(
  prepare?: (db: Db) => Promise<void>,
  /** Its configuration besides the harness's (e.g. STORE_CURRENCIES). */
  env: Record<string, string> = {},
): OwnStore {
  const own = {} as OwnStore
  beforeAll(async () => {
    own.browser = await launchBrowser()
    Object.assign(own, await startStoreWithAdmin(env, prepare))
  }, 120_000)
  afterAll(async () => {
    await own.browser?.close()
    await own.store?.stop()
  })
  return own
}
