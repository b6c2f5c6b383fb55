import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { createS3Storage } from '#app/server/s3-storage.server.ts'
import { createLocalStorage, type FileStorage } from '#app/server/storage.server.ts'
import { S3RVER_CREDENTIALS, startTestS3, type TestS3 } from '#harness/s3-server.ts'

export type BackEndName = 'folder' | 's3'

/**
 * Both FileStorage back ends for a test file (issue 32: every storage test on both): a fresh folder, or a fresh
 * prefix of a bucket on a real S3-compatible server (s3rver on 127.0.0.1, started once for the file). `env` is
 * what the store's configuration says for the same storage (STORAGE_URL and S3_ENDPOINT; the credentials are
 * put in this process's environment, where the AWS SDK reads them).
 */
export function storageBackEndsForFile(bucket: string) {
  let s3: TestS3 | undefined
  const folders: string[] = []
  let next = 1
  beforeAll(async () => {
    s3 = await startTestS3(bucket)
    process.env.AWS_ACCESS_KEY_ID = S3RVER_CREDENTIALS.accessKeyId
    process.env.AWS_SECRET_ACCESS_KEY = S3RVER_CREDENTIALS.secretAccessKey
  })
  afterAll(async () => {
    await s3?.stop()
    for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true })
  })
  return {
    /** A new, empty storage of that kind, and the environment naming it for a store whose data folder is `dataDir`. */
    make(kind: BackEndName, dataDir?: string): { storage: FileStorage; env: Record<string, string> } {
      if (kind === 'folder') {
        const dir = dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-storage-'))
        if (!dataDir) folders.push(dir)
        return { storage: createLocalStorage(path.join(dir, 'files')), env: {} }
      }
      if (!s3)
        throw new Error(
          'the S3 server is not started yet: call make() in a test or a beforeAll after this one',
        )
      const prefix = `store-${next++}`
      return {
        storage: createS3Storage(s3.client, { bucket: s3.bucket, prefix: `${prefix}/` }),
        env: { STORAGE_URL: `s3://${s3.bucket}/${prefix}`, S3_ENDPOINT: s3.endpoint },
      }
    },
  }
}

/** Every file of one storage put into another. */
export async function copyStorage(from: FileStorage, to: FileStorage): Promise<void> {
  for await (const file of from.list('')) {
    const bytes = await from.read(file.key)
    if (bytes) await to.put(file.key, bytes)
  }
}

/** Every file of a storage by key, with its size. */
export async function listStorage(storage: FileStorage): Promise<Map<string, number>> {
  const files = new Map<string, number>()
  for await (const file of storage.list('')) files.set(file.key, file.size)
  return files
}
