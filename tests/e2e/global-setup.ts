import path from 'node:path'
import type { TestProject } from 'vitest/node'
import { openDatabase } from '#app/server/db/database.server.ts'
import { createReader, testPassword } from '#tests/factories/buyers.ts'
import { spawnStore, tempDataDir, waitUntilReady, type StoreProcess } from '#tests/store-process.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    baseURL: string
    /** The store's DATA_DIR: receipts are written to its outbox/ folder as .eml files (no SMTP_URL). */
    dataDir: string
    /** An account the store makes an admin at start-up (ADMIN_EMAILS), and its password. */
    admin: { email: string; password: string }
  }
}

let store: StoreProcess | undefined

/**
 * One production store on a fresh embedded database for every browser test. It trusts the loopback proxy's
 * X-Forwarded-For, and each browser context sends its own address (newPage), so that the per-IP rate limits
 * of sign-ups and logins see every test as a different visitor, as they would be.
 */
export async function setup(project: TestProject) {
  const dataDir = tempDataDir()
  const admin = { email: 'owner@codebook.test', password: testPassword }
  // The owner registered before the store starts, as they would; ADMIN_EMAILS makes them an admin at start-up.
  const database = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'db') })
  await database.migrate()
  await createReader(database.db, { email: admin.email })
  await database.close()
  store = await spawnStore({ TRUST_PROXY: 'loopback', DATA_DIR: dataDir, ADMIN_EMAILS: admin.email })
  await waitUntilReady(store)
  project.provide('baseURL', store.url)
  project.provide('dataDir', store.dataDir)
  project.provide('admin', admin)
}

export async function teardown() {
  const code = await store?.stop()
  if (code !== 0) console.error(`the e2e store exited with ${code}:\n${store?.output()}`)
}
