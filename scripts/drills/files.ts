/**
 * What the drills that run the store on an object store share (issue 32): a real S3-compatible server for it
 * (s3rver on 127.0.0.1, harness/s3-server.ts) and the store's environment pointing at it, and the check that
 * a file is whole — a file served or stored must be the complete PDF, EPUB or image, never the first part of
 * one (a write cut by a kill, an object read while it was being replaced).
 */
import fs from 'node:fs'
import path from 'node:path'
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3'
import JSZip from 'jszip'
import sharp from 'sharp'
import { S3RVER_CREDENTIALS, startTestS3, type TestS3 } from '#harness/s3-server.ts'
import type { StorageKind } from './options.ts'

/** The bucket and the prefix (STORAGE_URL's) the drills' stores keep their files under. */
const BUCKET = 'codebook-drill'
const PREFIX = 'store/'

export type DrillStorage = {
  kind: StorageKind
  /** What every store instance is started with (none for the folder). */
  env: Record<string, string>
  /** Set with S3: the server, to pause, resume, and read the bucket directly. */
  s3?: TestS3
  /** Stops the S3 server and removes its objects (nothing for the folder). */
  stop(): Promise<void>
}

/** The store's files in its folder (nothing to start), or in a bucket of a fresh s3rver. */
export async function startDrillStorage(kind: StorageKind): Promise<DrillStorage> {
  if (kind === 'folder') return { kind, env: {}, stop: async () => {} }
  const s3 = await startTestS3(BUCKET)
  return {
    kind,
    s3,
    env: {
      STORAGE_URL: `s3://${BUCKET}/${PREFIX.slice(0, -1)}`,
      S3_ENDPOINT: s3.endpoint,
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    },
    stop: () => s3.stop(),
  }
}

export type FileKind = 'pdf' | 'epub' | 'image'

/** The kind of file a storage key or URL names by its extension; null for one the drills do not check. */
export function fileKindOf(name: string): FileKind | null {
  const extension = path.extname(name.split('?')[0]!).toLowerCase()
  if (extension === '.pdf') return 'pdf'
  if (extension === '.epub') return 'epub'
  if (['.avif', '.webp', '.jpeg', '.jpg', '.png'].includes(extension)) return 'image'
  return null
}

/**
 * Why the bytes are not a whole file of their kind, or null when they are: `expectedLength` (the answer's
 * Content-Length, or the size in its Content-Range) must match; a PDF starts with its header and ends with its
 * `startxref … %%EOF` trailer; an EPUB is a ZIP whose every entry's CRC-32 matches, with the `mimetype` and the
 * container file; an image decodes to its last pixel (sharp fails on a truncated one).
 */
export async function wholeFileProblem(
  bytes: Uint8Array,
  kind: FileKind,
  expectedLength?: number,
): Promise<string | null> {
  if (expectedLength !== undefined && bytes.length !== expectedLength)
    return `${bytes.length} bytes where ${expectedLength} were announced`
  if (bytes.length === 0) return 'empty'
  const text = (from: number, to?: number) => Buffer.from(bytes.subarray(from, to)).toString('latin1')
  if (kind === 'pdf') {
    if (text(0, 5) !== '%PDF-') return 'no %PDF- header'
    if (!/startxref\s+\d+\s+%%EOF\s*$/.test(text(Math.max(0, bytes.length - 1024))))
      return 'no startxref/%%EOF trailer at its end'
    return null
  }
  if (kind === 'epub') {
    try {
      const zip = await JSZip.loadAsync(bytes, { checkCRC32: true })
      const mimetype = await zip.file('mimetype')?.async('string')
      if (mimetype?.trim() !== 'application/epub+zip') return `mimetype is ${JSON.stringify(mimetype)}`
      if (!zip.file('META-INF/container.xml')) return 'no META-INF/container.xml'
      // Every entry inflated (and its CRC-32 checked): a ZIP cut short loses its central directory, but one
      // whose end was replaced by another version's could still list entries it does not hold whole.
      await Promise.all(Object.values(zip.files).map((entry) => entry.async('uint8array')))
      return null
    } catch (error) {
      return `not a whole ZIP: ${(error as Error).message}`
    }
  }
  try {
    await sharp(bytes, { failOn: 'truncated' }).raw().toBuffer()
    return null
  } catch (error) {
    return `does not decode: ${(error as Error).message}`
  }
}

/**
 * Every file the store keeps under `under` (`stamped/`, `covers/`) with the bytes it holds, read directly
 * from its folder or its bucket (not through the store).
 */
export async function readStoredFiles(
  storage: DrillStorage,
  dataDir: string,
  under: string,
): Promise<{ key: string; bytes: Uint8Array }[]> {
  const files: { key: string; bytes: Uint8Array }[] = []
  if (!storage.s3) {
    const root = path.join(dataDir, 'files')
    const start = path.join(root, under)
    if (!fs.existsSync(start)) return files
    for (const entry of fs.readdirSync(start, { recursive: true, withFileTypes: true })) {
      // The folder's temporary files (`.name.random.tmp`) are not files of the store's.
      if (!entry.isFile() || entry.name.startsWith('.')) continue
      const file = path.join(entry.parentPath, entry.name)
      files.push({ key: path.relative(root, file), bytes: new Uint8Array(fs.readFileSync(file)) })
    }
    return files
  }
  const { client, bucket } = storage.s3
  let token: string | undefined
  do {
    const listed = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: `${PREFIX}${under}`, ContinuationToken: token }),
    )
    for (const object of listed.Contents ?? []) {
      const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: object.Key! }))
      files.push({
        key: object.Key!.slice(PREFIX.length),
        bytes: got.Body ? await got.Body.transformToByteArray() : new Uint8Array(),
      })
    }
    token = listed.IsTruncated ? listed.NextContinuationToken : undefined
  } while (token)
  return files
}

/** The stored files (`readStoredFiles`) that are not whole, each with why; files of other kinds are skipped. */
export async function brokenStoredFiles(
  storage: DrillStorage,
  dataDir: string,
  under: string,
): Promise<{ checked: number; problems: string[] }> {
  let checked = 0
  const problems: string[] = []
  for (const { key, bytes } of await readStoredFiles(storage, dataDir, under)) {
    const kind = fileKindOf(key)
    if (!kind) continue
    checked++
    const problem = await wholeFileProblem(bytes, kind)
    if (problem) problems.push(`stored ${key}: ${problem}`)
  }
  return { checked, problems }
}
