import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Db } from '#app/server/db/database.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createS3Client, createS3Storage } from '#app/server/s3-storage.server.ts'
import { createLocalStorage, type FileStorage } from '#app/server/storage.server.ts'
import { createStoreServices, type StoreServices } from '#app/services.server.ts'
import { countStorageCall } from './storage-suite.ts'
import { S3RVER_CREDENTIALS } from './s3-server.ts'

const servicesByDb = new WeakMap<Db, StoreServices>()

/**
 * The process-wide services for a test database, made once per database like the store does at start. Files
 * go to a fresh, empty storage (testStorage).
 */
export function servicesFor(db: Db): StoreServices {
  let services = servicesByDb.get(db)
  if (!services) {
    services = createStoreServices({
      db,
      env: parseEnv({}),
      authSecret: 'test-secret-that-is-long-enough-0123456789',
      logger: createLogger('silent'),
      storage: testStorage(),
    })
    servicesByDb.set(db, services)
  }
  return services
}

let s3Client: ReturnType<typeof createS3Client> | undefined

/**
 * A fresh, empty FileStorage of the kind this run tests (issue 32): a temporary folder (the operating system's
 * temp cleaner removes it), or, under `npm run test:s3` (TEST_STORAGE=s3), a new prefix of the bucket on the
 * S3-compatible server that script started (TEST_S3_ENDPOINT, TEST_S3_BUCKET). Two calls are two instances'
 * storages that share nothing, as a test of 'another instance' needs.
 */
export function testStorage(): FileStorage {
  return counted(process.env.TEST_STORAGE === 's3' ? bucketStorage() : folderStorage())
}

function folderStorage(): FileStorage {
  return createLocalStorage(fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-files-')))
}

function bucketStorage(): FileStorage {
  const endpoint = process.env.TEST_S3_ENDPOINT
  const bucket = process.env.TEST_S3_BUCKET
  if (!endpoint || !bucket) throw new Error('TEST_STORAGE=s3 needs TEST_S3_ENDPOINT and TEST_S3_BUCKET')
  s3Client ??= createS3Client({ endpoint, credentials: S3RVER_CREDENTIALS })
  return createS3Storage(s3Client, { bucket, prefix: `test-${process.pid}-${crypto.randomUUID()}/` })
}

/** The storage, with each call counted for the storage suite's guard (tests/storage-suite-guard.ts). */
function counted(storage: FileStorage): FileStorage {
  return {
    put: (key, bytes) => (countStorageCall(), storage.put(key, bytes)),
    stat: (key) => (countStorageCall(), storage.stat(key)),
    read: (key) => (countStorageCall(), storage.read(key)),
    createReadStream: (key, range) => (countStorageCall(), storage.createReadStream(key, range)),
    delete: (key) => (countStorageCall(), storage.delete(key)),
    list: (prefix) => (countStorageCall(), storage.list(prefix)),
    ...(storage.ping ? { ping: () => storage.ping!() } : {}),
  }
}
