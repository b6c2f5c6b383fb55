import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Db } from '#app/server/db/database.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createLocalStorage } from '#app/server/storage.server.ts'
import { createStoreServices, type StoreServices } from '#app/services.server.ts'

const servicesByDb = new WeakMap<Db, StoreServices>()

/**
 * The process-wide services for a test database, made once per database like the store does at start. Files
 * go to a fresh temporary folder (the operating system's temp cleaner removes it).
 */
export function servicesFor(db: Db): StoreServices {
  let services = servicesByDb.get(db)
  if (!services) {
    services = createStoreServices({
      db,
      env: parseEnv({}),
      authSecret: 'test-secret-that-is-long-enough-0123456789',
      logger: createLogger('silent'),
      storage: createLocalStorage(fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-files-'))),
    })
    servicesByDb.set(db, services)
  }
  return services
}
