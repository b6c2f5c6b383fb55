import type { FileStorage } from './storage.server.ts'

/**
 * Where an S3-compatible object store is, from `STORAGE_URL=s3://<bucket>[/<prefix>]` and the usual AWS
 * variables (issue 32): `AWS_REGION` (default us-east-1), `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` (or any
 * source the SDK's default chain reads), and `S3_ENDPOINT` for a store other than AWS (Cloudflare R2, MinIO,
 * Backblaze B2, Ceph), addressed by path (`https://host/bucket/key`) unless `S3_VIRTUAL_HOSTED=1`.
 */
export type S3Location = { bucket: string; prefix: string }

export function parseStorageUrl(value: string): S3Location {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(\/[a-z0-9][a-z0-9._/-]*)?\/?$/.exec(value)
  if (!match)
    throw new Error(
      `STORAGE_URL must look like s3://bucket or s3://bucket/prefix (lower-case), not ${JSON.stringify(value)}`,
    )
  const prefix = (match[2] ?? '').replace(/^\/|\/$/g, '')
  return { bucket: match[1]!, prefix: prefix ? `${prefix}/` : '' }
}

/**
 * The store's FileStorage as the environment names it: the folder (the default), or the bucket of
 * STORAGE_URL. The AWS SDK is loaded on the first call only, so a store on its folder never loads it.
 */
export function storageFromEnv(
  env: { STORAGE_URL?: string; S3_ENDPOINT?: string; S3_VIRTUAL_HOSTED: '0' | '1'; AWS_REGION: string },
  folder: () => FileStorage,
): FileStorage {
  if (!env.STORAGE_URL) return folder()
  const location = parseStorageUrl(env.STORAGE_URL)
  let made: Promise<FileStorage> | undefined
  const bucket = () =>
    (made ??= import('./s3-storage.server.ts').then(({ createS3Client, createS3Storage }) =>
      createS3Storage(
        createS3Client({
          region: env.AWS_REGION,
          endpoint: env.S3_ENDPOINT,
          virtualHosted: env.S3_VIRTUAL_HOSTED === '1',
        }),
        location,
      ),
    ))
  return {
    put: async (key, bytes) => (await bucket()).put(key, bytes),
    stat: async (key) => (await bucket()).stat(key),
    read: async (key) => (await bucket()).read(key),
    createReadStream: async (key, range) => (await bucket()).createReadStream(key, range),
    delete: async (key) => (await bucket()).delete(key),
    list: async function* (prefix) {
      yield* (await bucket()).list(prefix)
    },
    ping: async () => (await bucket()).ping?.(),
    signedUrl: async (key, options) => (await bucket()).signedUrl!(key, options),
  }
}
