import { createHash, randomUUID } from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
// s3rver ships no types: the little of it used here.
// @ts-expect-error no declaration file
import S3rver from 's3rver'
import { createS3Client } from '#app/server/s3-storage.server.ts'

const require = createRequire(import.meta.url)

/** s3rver's default credentials, which it checks signatures with. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }

export type TestS3 = {
  endpoint: string
  bucket: string
  client: ReturnType<typeof createS3Client>
  /** Stops the server and removes its folder. */
  stop(): Promise<void>
  /** Stops answering (the port closed), keeping the objects: an outage of the object store. */
  pause(): Promise<void>
  /** Answers again, on the same port, with the same objects. */
  resume(): Promise<void>
}

/**
 * A real S3-compatible server (s3rver, objects in a temporary folder) on 127.0.0.1 and a free port, with one
 * empty bucket: what the storage tests run the S3 back end against (issue 32).
 */
export async function startTestS3(bucket = 'codebook-test'): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-s3-'))
  const incoming = `${directory}-incoming`
  fs.mkdirSync(incoming)
  const serve = (port: number) => {
    const server = new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory,
      configureBuckets: [{ name: bucket }],
    }) as { store: FilesystemStore; run(): Promise<unknown>; close(): Promise<void> }
    keepS3Contract(server.store, incoming)
    return server
  }
  let server = serve(0)
  const address = (await server.run()) as { address: string; port: number }
  let running = true
  const endpoint = `http://127.0.0.1:${address.port}`
  const client = createS3Client({ endpoint, credentials: S3RVER_CREDENTIALS })
  return {
    endpoint,
    bucket,
    client,
    async stop() {
      client.destroy()
      if (running) await server.close()
      fs.rmSync(directory, { recursive: true, force: true })
      fs.rmSync(incoming, { recursive: true, force: true })
    },
    async pause() {
      if (!running) return
      running = false
      await server.close()
    },
    async resume() {
      if (running) return
      server = serve(address.port)
      await server.run()
      running = true
    },
  }
}

/** The parts of s3rver's file-system store (s3rver/lib/stores/filesystem.js) replaced or called below. */
type FilesystemStore = {
  getResourcePath(bucket: string, key: string, resource: string): string
  getMetadata(bucket: string, key: string): Promise<Record<string, string | number>>
  putMetadata(bucket: string, key: string, metadata: Record<string, unknown>, md5?: string): Promise<void>
  putObject(object: S3ObjectLike): Promise<{ size: number; md5: string }>
  copyObject(
    srcBucket: string,
    srcKey: string,
    destBucket: string,
    destKey: string,
    replacementMetadata?: Record<string, unknown>,
  ): Promise<Record<string, string | number>>
  getObject(
    bucket: string,
    key: string,
    options?: { start?: number; end?: number },
  ): Promise<S3ObjectLike | null>
}
type S3ObjectLike = {
  bucket: string
  key: string
  content: Readable | Buffer | null
  metadata: Record<string, string | number>
  range?: { start: number; end: number }
}
const S3Object = require('s3rver/lib/models/object.js') as new (
  bucket: string,
  key: string,
  content: Readable | null,
  metadata: Record<string, string | number>,
) => S3ObjectLike
const S3Error = require('s3rver/lib/models/error.js') as new (code: string, message: string) => Error

/**
 * s3rver writes an object in place, which S3 (and R2, MinIO, B2, Ceph: decision 034) never does: an upload whose
 * writer dies mid-way stays under its key as the first part of the file, a read meeting a write returns part of
 * one version, and it answers an upload before the bytes are all in its file. Tested against it, a store
 * would be blamed for what the real thing cannot do, so the test double keeps S3's contract (issue 32, found
 * by drill:kill and drill:storage): an object appears whole or not at all.
 * - an upload is written beside the bucket (`incoming`, on the same file system), flushed, refused as S3 refuses
 *   it when shorter than its Content-Length (`IncompleteBody`), then renamed onto the object;
 * - a copy likewise (the copy, then the rename);
 * - a read opens the object first and takes its size from the open file, so a rename meanwhile cannot give it
 *   one version's size and another's bytes.
 * Metadata (content type, ETag) is still written after the bytes, as s3rver does: the store reads neither.
 */
function keepS3Contract(store: FilesystemStore, incoming: string) {
  const settle = async (temporary: string, objectPath: string) => {
    await fs.promises.mkdir(path.dirname(objectPath), { recursive: true })
    await fs.promises.rename(temporary, objectPath)
  }
  store.putObject = async (object) => {
    const objectPath = store.getResourcePath(object.bucket, object.key, 'object')
    const temporary = path.join(incoming, randomUUID())
    const md5 = createHash('md5')
    let size = 0
    try {
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          md5.update(chunk)
          size += chunk.length
          callback(null, chunk)
        },
      })
      const source = Buffer.isBuffer(object.content) ? [object.content] : (object.content as Readable)
      await pipeline(source, counted, fs.createWriteStream(temporary))
      const declared = Number(object.metadata['content-length'])
      if (Number.isFinite(declared) && size < declared)
        throw new S3Error(
          'IncompleteBody',
          'You did not provide the number of bytes specified by the Content-Length HTTP header.',
        )
      await settle(temporary, objectPath)
    } catch (error) {
      await fs.promises.rm(temporary, { force: true })
      throw error
    }
    const digest = md5.digest('hex')
    await store.putMetadata(object.bucket, object.key, object.metadata, digest)
    return { size, md5: digest }
  }
  store.copyObject = async (srcBucket, srcKey, destBucket, destKey, replacementMetadata) => {
    const source = store.getResourcePath(srcBucket, srcKey, 'object')
    const target = store.getResourcePath(destBucket, destKey, 'object')
    const metadata = await store.getMetadata(srcBucket, srcKey)
    if (source !== target) {
      const temporary = path.join(incoming, randomUUID())
      try {
        await fs.promises.copyFile(source, temporary)
        await settle(temporary, target)
      } catch (error) {
        await fs.promises.rm(temporary, { force: true })
        throw error
      }
    }
    const md5 = JSON.parse(String(metadata.etag)) as string
    await store.putMetadata(destBucket, destKey, replacementMetadata ?? metadata, md5)
    return store.getMetadata(destBucket, destKey)
  }
  store.getObject = async (bucket, key, options) => {
    let handle: fs.promises.FileHandle
    try {
      handle = await fs.promises.open(store.getResourcePath(bucket, key, 'object'), 'r')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw error
    }
    try {
      const size = (await handle.stat()).size
      const stored = await store.getMetadata(bucket, key).catch(() => ({}))
      const metadata = { ...stored, 'content-length': size }
      // As s3rver's own getObject: the range clamped to the object, or none to send when it cannot be.
      const lastByte = Math.max(0, size - 1)
      const range = {
        start: options?.start ?? 0,
        end: Math.min(options?.end ?? Infinity, lastByte),
      }
      const ranged = options !== undefined && (options.start !== undefined || Boolean(options.end))
      if (range.start < 0 || range.end < range.start) {
        await handle.close()
        const object = new S3Object(bucket, key, null, metadata)
        if (ranged) object.range = range
        return object
      }
      const content = handle.createReadStream({ start: range.start, end: range.end })
      const object = new S3Object(bucket, key, content, metadata)
      if (ranged) object.range = range
      return object
    } catch (error) {
      await handle.close()
      throw error
    }
  }
}
