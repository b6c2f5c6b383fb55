import type { TestProject } from 'vitest/node'
import { startStoreWithAdmin, type StoreProcess } from '#harness/store-process.ts'

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
  const started = await startStoreWithAdmin()
  store = started.store
  project.provide('baseURL', store.url)
  project.provide('dataDir', store.dataDir)
  project.provide('admin', started.admin)
}

export async function teardown() {
  const code = await store?.stop()
  if (code !== 0) console.error(`the e2e store exited with ${code}:\n${store?.output()}`)
}
