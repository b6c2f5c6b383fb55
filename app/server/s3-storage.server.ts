import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { contentDisposition } from './file-response.server.ts'
import type { S3Location } from './storage-url.ts'
import { assertValidStorageKey, assertValidStoragePrefix, type FileStorage } from './storage.server.ts'

export function createS3Client(options: {
  region?: string
  endpoint?: string
  virtualHosted?: boolean
  credentials?: { accessKeyId: string; secretAccessKey: string }
}): S3Client {
  return new S3Client({
    region: options.region ?? 'us-east-1',
    ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: !options.virtualHosted } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    // Checksums only where the API requires them: several S3-compatible stores refuse the SDK's default
    // CRC32 headers on every request (R2 and older MinIO did), and S3's own MD5 ETag still guards each upload.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A store that does not answer is an error within seconds, not a request that hangs (issue 32): 3 s to
    // connect, and a socket silent for 30 s (a stalled answer or body) is an error — the SDK's requestTimeout
    // alone only warns unless told to throw.
    requestHandler: {
      connectionTimeout: 3_000,
      requestTimeout: 30_000,
      throwOnRequestTimeout: true,
      socketTimeout: 30_000,
    },
    maxAttempts: 2,
  })
}

/**
 * How long a call that could not reach the store keeps `ping` failing. The host pings right after a request
 * failed (server/unavailable.ts) to tell an outage (503) from a fault (500); while a store goes down or comes
 * back, a ping on a connection still open can succeed just after a new connection was refused, and the request
 * it failed would be a 500 (drill:storage found two at the moment the store stopped, issue 32).
 */
const UNREACHABLE_MS = 1_000

/**
 * A FileStorage over an S3-compatible bucket: the same five calls as the folder, each key under the prefix. An
 * object appears whole or not at all (S3 makes an upload visible only once complete, so a reader never sees a
 * half-written file and an overwrite is atomic), and a read is of one version: a ranged stream reads the whole
 * object's size from the same response.
 */
export function createS3Storage(client: S3Client, location: S3Location): FileStorage {
  const { bucket, prefix } = location
  const objectKey = (key: string) => {
    assertValidStorageKey(key)
    return `${prefix}${key}`
  }
  let unreachable: { at: number; error: unknown } | undefined
  /** The call's answer; a failure to reach the store is noted for `ping` before it is thrown on. */
  const sent = <T>(call: Promise<T>): Promise<T> =>
    call.catch((error: unknown) => {
      if (isUnreachable(error)) unreachable = { at: performance.now(), error }
      throw error
    })

  return {
    async put(key, bytes) {
      await sent(
        client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: objectKey(key),
            Body: bytes,
            ContentLength: bytes.length,
          }),
        ),
      )
    },

    async stat(key) {
      try {
        const head = await sent(client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) })))
        return { size: head.ContentLength ?? 0 }
      } catch (error) {
        if (isMissing(error)) return null
        throw error
      }
    },

    async read(key) {
      try {
        const object = await sent(client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) })))
        return object.Body ? await sent(object.Body.transformToByteArray()) : new Uint8Array()
      } catch (error) {
        if (isMissing(error)) return null
        throw error
      }
    },

    async createReadStream(key, range) {
      const name = objectKey(key)
      if (range && !(range.start >= 0 && range.start <= range.end))
        throw new RangeError(`Byte range ${range.start}-${range.end} is not a range`)
      let object
      try {
        object = await sent(
          client.send(
            new GetObjectCommand({
              Bucket: bucket,
              Key: name,
              ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
            }),
          ),
        )
      } catch (error) {
        if (isMissing(error)) return null
        if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 416)
          throw new RangeError(`Byte range ${range?.start}-${range?.end} is outside the file`)
        throw error
      }
      // The whole object's size: from `bytes 9-13/14` when ranged, else the response's length.
      const size = range
        ? Number(/\/(\d+)$/.exec(object.ContentRange ?? '')?.[1] ?? Number.NaN)
        : (object.ContentLength ?? 0)
      if (range && !(Number.isFinite(size) && range.end < size)) {
        // S3 shortens a range that runs past the end; the folder refuses it, and so does this.
        await object.Body?.transformToByteArray().catch(() => undefined)
        throw new RangeError(`Byte range ${range.start}-${range.end} is outside a file of ${size} bytes`)
      }
      const stream = object.Body
        ? (object.Body.transformToWebStream() as ReadableStream<Uint8Array>)
        : new ReadableStream<Uint8Array>({ start: (controller) => controller.close() })
      return { stream, size }
    },

    async delete(key) {
      await sent(client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) })))
    },

    async *list(listPrefix) {
      assertValidStoragePrefix(listPrefix)
      // ListObjects (v1) paged by Marker = the last key seen: every S3-compatible store answers it alike, while
      // v2's continuation tokens are each store's own (s3rver's cannot be made on Node ≥ 17: it encrypts them
      // with DES). S3 still serves v1 in full.
      let marker: string | undefined
      for (;;) {
        const page = await sent(
          client.send(
            new ListObjectsCommand({ Bucket: bucket, Prefix: `${prefix}${listPrefix}`, Marker: marker }),
          ),
        )
        const contents = page.Contents ?? []
        for (const object of contents) {
          const key = object.Key?.slice(prefix.length)
          if (!key) continue
          yield { key, size: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) }
        }
        if (!page.IsTruncated || contents.length === 0) return
        marker = contents.at(-1)!.Key
      }
    },

    async signedUrl(key, { expiresInSeconds, fileName, contentType }) {
      return getSignedUrl(
        client,
        new GetObjectCommand({
          Bucket: bucket,
          Key: objectKey(key),
          ResponseContentDisposition: contentDisposition(fileName),
          ResponseContentType: contentType,
          ResponseCacheControl: 'private, no-store',
        }),
        { expiresIn: expiresInSeconds },
      )
    },

    async ping() {
      // A call that could not reach the store a moment ago: down, whatever an open connection says.
      if (unreachable && performance.now() - unreachable.at < UNREACHABLE_MS) throw unreachable.error
      await sent(client.send(new HeadBucketCommand({ Bucket: bucket })))
    },
  }
}

/**
 * The store could not be reached or could not serve: no connection (refused, reset, timed out, no such host)
 * or a 5xx of its own (S3's 503 SlowDown, 500 InternalError). Not a 4xx: the store answered.
 */
function isUnreachable(error: unknown): boolean {
  if (error instanceof S3ServiceException) return (error.$metadata.httpStatusCode ?? 0) >= 500
  const code = (error as NodeJS.ErrnoException | null)?.code
  const name = (error as Error | null)?.name
  return (
    name === 'TimeoutError' ||
    (typeof code === 'string' &&
      [
        'ECONNREFUSED',
        'ECONNRESET',
        'ETIMEDOUT',
        'EPIPE',
        'EHOSTUNREACH',
        'ENETUNREACH',
        'ENOTFOUND',
        'EAI_AGAIN',
      ].includes(code))
  )
}

/** No such object: a missing bucket is not that (it is a configuration error, thrown). */
function isMissing(error: unknown): boolean {
  if (!(error instanceof S3ServiceException) || error.name === 'NoSuchBucket') return false
  return error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404
}
