import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { drizzle as drizzlePostgres } from 'drizzle-orm/node-postgres'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import pg from 'pg'
import { lockDataDir } from '#app/server/data-dir-lock.server.ts'
import { advisoryLocks } from '#app/server/db/advisory-lock.server.ts'
import * as schema from '#app/server/db/schema/index.server.ts'
import { createLocalStorage, type FileStorage } from '#app/server/storage.server.ts'
import { storageFromEnv } from '#app/server/storage-url.ts'
import { listFilesInUse } from '#app/startup.server.ts'
import {
  type BackedUpFile,
  copyFilesOut,
  FILES_FOLDER,
  hashFolderFiles,
  listBackedUpKeys,
  putFilesBack,
  verifyBackedUpFiles,
} from './backup-files.ts'

const run = promisify(execFile)

/** What `npm run backup` reads: the store's own configuration (app/server/env.server.ts). */
export type BackupEnv = {
  DATABASE_URL?: string
  DATA_DIR: string
  STORAGE_URL?: string
  S3_ENDPOINT?: string
  S3_VIRTUAL_HOSTED?: '0' | '1'
  AWS_REGION?: string
}

/** Each part beside the manifest (the database, the data-folder archive) with its size and SHA-256. */
type Parts = Record<string, BackedUpFile>

export type BackupManifest = {
  /** 2: the store's files in `files/`, through its FileStorage (issue 32). 1: they were in the data-folder archive. */
  format: 2
  database: 'pglite' | 'postgres'
  createdAt: string
  parts: Parts
  files: {
    /** The storage they were copied from: `DATA_DIR/files` or the `s3://…` of STORAGE_URL. */
    from: string
    count: number
    bytes: number
    /** Every file, by storage key, as `files/<key>` holds it. */
    list: Record<string, BackedUpFile>
    /**
     * Files a row of the dump names that the storage did not have when they were copied: missing from the store
     * already, or deleted while the backup ran (a cover replaced meanwhile). Empty in a backup that restores whole.
     */
    missing: string[]
  }
}

/** A backup made before the store's files had their own part: they are in the data-folder archive. */
export type BackupManifestV1 = {
  format: 1
  database: 'pglite' | 'postgres'
  createdAt: string
  parts: Record<string, number>
}

const MANIFEST = 'manifest.json'
const PGLITE_PART = 'database.pglite.tar.gz'
const POSTGRES_PART = 'database.pgdump'
const DATA_DIR_PART = 'data-dir.tar.gz'
/**
 * Left out of the data-folder archive: the database (its own part), the store's files (theirs, `files/`), the
 * lock, earlier restores' leftovers and files half written (the store writes a temporary file and renames it).
 */
const NOT_IN_DATA_DIR_PART = [
  './db',
  './files',
  './codebook.lock',
  './db.before-restore-*',
  './restore-staging-*',
  '.*.tmp',
]

type BackupOptions = {
  /** The store's files; by default the storage the environment names (DATA_DIR/files or STORAGE_URL's bucket). */
  storage?: FileStorage
}

/**
 * A backup of one store into a new folder `outDir`: the database (PGlite: its data folder as PGlite dumps it,
 * taken with the store stopped, since PGlite is one process's; PostgreSQL: `pg_dump` in its custom format,
 * a consistent snapshot taken while the store runs), the store's files (`files/`, from its FileStorage: the
 * folder or the bucket) and the rest of DATA_DIR (the generated auth secret, the outbox's mails), with a
 * manifest giving every part's and every file's size and SHA-256. Throws if the folder exists or a tool fails.
 *
 * Files and the dump of a running store (PostgreSQL): the files every row of the dump names are read in the
 * dump's own snapshot (`pg_export_snapshot`, then `pg_dump --snapshot`) and copied first, before the dump runs:
 * a file is put before the row naming it commits, so each one is there. The rest (orphans, files written since)
 * are copied after the dump. Meanwhile the backup holds the file sweep's lock (shared), so no instance sweeps a
 * file away between the snapshot and its copy. Only a cover, photo or logo replaced in that second is deleted by
 * its replacement: the manifest then lists it as `missing`.
 */
export async function createBackup(
  env: BackupEnv,
  outDir: string,
  options: BackupOptions = {},
): Promise<BackupManifest> {
  if (fs.existsSync(outDir)) throw new Error(`${outDir} already exists: choose a new folder for the backup`)
  fs.mkdirSync(outDir, { recursive: true })
  const storage = options.storage ?? configuredStorage(env)
  const kind = env.DATABASE_URL ? 'postgres' : 'pglite'
  let named: Set<string>
  let copied: Map<string, BackedUpFile>
  if (env.DATABASE_URL) {
    ;({ named, copied } = await dumpPostgres(env.DATABASE_URL, outDir, storage))
    await archiveDataDir(env.DATA_DIR, outDir, { online: true })
  } else {
    const lock = lockDataDir(env.DATA_DIR)
    try {
      const client = await PGlite.create(path.join(env.DATA_DIR, 'db'), { extensions: { pg_trgm } })
      try {
        named = await listFilesInUse(drizzlePglite({ client, schema }))
        const dump = await client.dumpDataDir('gzip')
        fs.writeFileSync(path.join(outDir, PGLITE_PART), Buffer.from(await dump.arrayBuffer()))
      } finally {
        await client.close()
      }
      // The store is stopped: nothing changes while the files are copied.
      copied = await copyFilesOut(storage, outDir, await listBackedUpKeys(storage))
      await archiveDataDir(env.DATA_DIR, outDir)
    } finally {
      lock.release()
    }
  }
  const list = Object.fromEntries([...copied].sort(([a], [b]) => (a < b ? -1 : 1)))
  const manifest: BackupManifest = {
    format: 2,
    database: kind,
    createdAt: new Date().toISOString(),
    parts: await hashParts(outDir),
    files: {
      from: env.STORAGE_URL ?? 'DATA_DIR/files',
      count: copied.size,
      bytes: [...copied.values()].reduce((sum, file) => sum + file.bytes, 0),
      list,
      missing: [...named].filter((key) => !copied.has(key)).sort(),
    },
  }
  fs.writeFileSync(path.join(outDir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`)
  return manifest
}

/**
 * `pg_dump` of a running store in a snapshot this process exported, the files its rows name copied first (see
 * createBackup), the rest after, all under the file sweep's lock.
 */
async function dumpPostgres(url: string, outDir: string, storage: FileStorage) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    // Waits for a sweep in progress (at most its time budget) and keeps the next from starting.
    await client.query('select pg_advisory_lock_shared(hashtextextended($1, 0))', [advisoryLocks.fileSweep])
    await client.query('begin isolation level repeatable read read only')
    const { rows } = await client.query<{ snapshot: string }>('select pg_export_snapshot() as snapshot')
    const named = await listFilesInUse(drizzlePostgres({ client, schema }))
    const copied = await copyFilesOut(storage, outDir, named)
    await run(pgTool('pg_dump'), [
      '--format=custom',
      '--no-owner',
      '--no-privileges',
      `--snapshot=${rows[0]!.snapshot}`,
      `--file=${path.join(outDir, POSTGRES_PART)}`,
      url,
    ])
    await client.query('commit')
    const rest = (await listBackedUpKeys(storage)).filter((key) => !copied.has(key))
    for (const [key, file] of await copyFilesOut(storage, outDir, rest)) copied.set(key, file)
    return { named, copied }
  } finally {
    await client.end()
  }
}

/**
 * Puts a backup back. The database kind must match the configuration (a PGlite backup restores into
 * DATA_DIR/db, a PostgreSQL one into DATABASE_URL); the files go into the configured FileStorage, whichever it
 * is (a folder's backup restores into a bucket: how a store moves to S3).
 *
 * In this order, so that a failure leaves the store as it was: (1) every part and every file is checked against
 * the manifest's sizes and SHA-256 — a damaged backup changes nothing; (2) the files are put into the storage
 * and seen there — a failure here leaves the database as it was, and the files put are either new keys no row
 * names yet or the same bytes under the same key (keys name their content or edition); (3) the database is
 * swapped — nothing is thrown away: PGlite's current folder is moved to `db.before-restore-<time>`;
 * PostgreSQL is restored in one transaction (`pg_restore --clean --single-transaction`), so a failed restore
 * leaves the database as it was; (4) the rest of the data folder (auth secret, outbox) is written over the
 * current one. The store must be stopped for PGlite (its lock is taken) and should be for PostgreSQL (requests
 * during a restore see the old or the new data, never half of it). Format-1 backups (files in the data-folder
 * archive) restore the same way, their files put through the storage too.
 */
export async function restoreBackup(
  env: BackupEnv,
  fromDir: string,
  options: BackupOptions = {},
): Promise<BackupManifest | BackupManifestV1> {
  const manifestPath = path.join(fromDir, MANIFEST)
  if (!fs.existsSync(manifestPath)) throw new Error(`${fromDir} is not a backup (no ${MANIFEST})`)
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as BackupManifest | BackupManifestV1
  const kind = env.DATABASE_URL ? 'postgres' : 'pglite'
  if (manifest.format !== 1 && manifest.format !== 2)
    throw new Error(`unknown backup format ${String((manifest as { format: unknown }).format)}`)
  if (manifest.database !== kind)
    throw new Error(
      `this backup is of a ${manifest.database} database, but the store is configured for ${kind} (DATABASE_URL)`,
    )
  const storage = options.storage ?? configuredStorage(env)
  fs.mkdirSync(env.DATA_DIR, { recursive: true })
  const lock = env.DATABASE_URL ? undefined : lockDataDir(env.DATA_DIR)
  try {
    // (1) and (2): checked, then the files in place.
    if (manifest.format === 2) {
      await verifyParts(fromDir, manifest.parts)
      await verifyBackedUpFiles(fromDir, manifest.files.list)
      await putFilesBack(storage, fromDir, manifest.files.list)
    } else {
      await putFormat1FilesBack(fromDir, env.DATA_DIR, storage)
    }
    // (3) the database, (4) the rest of the data folder.
    if (env.DATABASE_URL) {
      await run(pgTool('pg_restore'), [
        '--clean',
        '--if-exists',
        '--no-owner',
        '--no-privileges',
        '--single-transaction',
        '--exit-on-error',
        `--dbname=${env.DATABASE_URL}`,
        path.join(fromDir, POSTGRES_PART),
      ])
    } else {
      const dbDir = path.join(env.DATA_DIR, 'db')
      if (fs.existsSync(dbDir))
        fs.renameSync(dbDir, `${dbDir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`)
      const dump = new Blob([fs.readFileSync(path.join(fromDir, PGLITE_PART))])
      const client = await PGlite.create(dbDir, { loadDataDir: dump, extensions: { pg_trgm } })
      await client.query('select 1')
      await client.close()
    }
    await extractDataDir(fromDir, env.DATA_DIR)
  } finally {
    lock?.release()
  }
  return manifest
}

/**
 * A format-1 backup's files, in its data-folder archive under `./files`: extracted beside the data folder,
 * then put through the storage like a format-2 backup's (a folder's backup of 2025 restores into a bucket).
 */
async function putFormat1FilesBack(fromDir: string, dataDir: string, storage: FileStorage) {
  const staging = path.join(dataDir, `restore-staging-${new Date().toISOString().replace(/[:.]/g, '-')}`)
  fs.mkdirSync(staging)
  try {
    await run('tar', [
      '--extract',
      '--gzip',
      `--file=${path.join(fromDir, DATA_DIR_PART)}`,
      `--directory=${staging}`,
    ])
    const source = createLocalStorage(path.join(staging, FILES_FOLDER))
    const files = await hashFolderFiles(source, await listBackedUpKeys(source))
    await putFilesBack(storage, staging, files)
  } finally {
    fs.rmSync(staging, { recursive: true, force: true })
  }
}

/** The storage the environment names, as the store opens it (server/app.ts). */
function configuredStorage(env: BackupEnv): FileStorage {
  return storageFromEnv(
    { ...env, S3_VIRTUAL_HOSTED: env.S3_VIRTUAL_HOSTED ?? '0', AWS_REGION: env.AWS_REGION ?? 'us-east-1' },
    () => createLocalStorage(path.join(env.DATA_DIR, FILES_FOLDER)),
  )
}

/** Each file beside the manifest (not the `files/` folder), with its size and SHA-256. */
async function hashParts(dir: string): Promise<Parts> {
  const parts: Parts = {}
  for (const entry of fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!entry.isFile() || entry.name === MANIFEST) continue
    parts[entry.name] = await hashFile(path.join(dir, entry.name))
  }
  return parts
}

async function verifyParts(dir: string, parts: Parts) {
  for (const [name, expected] of Object.entries(parts)) {
    const file = path.join(dir, name)
    if (!fs.existsSync(file)) throw new Error(`the backup's ${name} is missing: nothing was restored`)
    const found = await hashFile(file)
    if (found.bytes !== expected.bytes || found.sha256 !== expected.sha256)
      throw new Error(
        `the backup's ${name} does not match its manifest (size or SHA-256): nothing was restored`,
      )
  }
}

async function hashFile(file: string): Promise<BackedUpFile> {
  const hash = createHash('sha256')
  let bytes = 0
  for await (const chunk of fs.createReadStream(file) as AsyncIterable<Buffer>) {
    hash.update(chunk)
    bytes += chunk.length
  }
  return { bytes, sha256: hash.digest('hex') }
}

/**
 * `online`: the store runs meanwhile (PostgreSQL), so a folder may gain or lose a file while tar reads it
 * (a receipt in the outbox, a temporary file renamed): GNU tar says so and exits 1, which is expected then.
 * Every file is written whole and renamed into place, so each file archived is complete.
 */
async function archiveDataDir(dataDir: string, outDir: string, options: { online?: boolean } = {}) {
  fs.mkdirSync(dataDir, { recursive: true })
  await run('tar', [
    '--create',
    '--gzip',
    `--file=${path.join(outDir, DATA_DIR_PART)}`,
    ...NOT_IN_DATA_DIR_PART.map((pattern) => `--exclude=${pattern}`),
    ...(options.online ? ['--warning=no-file-changed', '--warning=no-file-removed'] : []),
    `--directory=${dataDir}`,
    '.',
  ]).catch((error: unknown) => {
    const someFilesChanged = (error as { code?: unknown }).code === 1
    if (!options.online || !someFilesChanged) throw error
  })
}

/** The data-folder archive, but its `./files` (format 1): those were put through the storage already. */
async function extractDataDir(fromDir: string, dataDir: string) {
  await run('tar', [
    '--extract',
    '--gzip',
    `--file=${path.join(fromDir, DATA_DIR_PART)}`,
    '--exclude=./files',
    `--directory=${dataDir}`,
  ])
}

/**
 * A PostgreSQL client tool: from PG_BIN, else the newest /usr/lib/postgresql/<version>/bin (Debian's
 * layout, where pg_dump is not on PATH), else PATH. pg_dump must be at least the server's major version.
 */
function pgTool(name: 'pg_dump' | 'pg_restore'): string {
  if (process.env.PG_BIN) return path.join(process.env.PG_BIN, name)
  const root = '/usr/lib/postgresql'
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((entry) => fs.existsSync(path.join(root, entry, 'bin', name)))
        .sort((a, b) => Number(b) - Number(a))
    : []
  return versions[0] ? path.join(root, versions[0], 'bin', name) : name
}
