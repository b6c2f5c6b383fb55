import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { lockDataDir } from '#app/server/data-dir-lock.server.ts'

const run = promisify(execFile)

/** What `npm run backup` reads: the store's own configuration. */
export type BackupEnv = { DATABASE_URL?: string; DATA_DIR: string }

export type BackupManifest = {
  format: 1
  database: 'pglite' | 'postgres'
  createdAt: string
  /** Files in the backup folder, with their sizes in bytes. */
  parts: Record<string, number>
}

const MANIFEST = 'manifest.json'
const PGLITE_PART = 'database.pglite.tar.gz'
const POSTGRES_PART = 'database.pgdump'
const FILES_PART = 'data-dir.tar.gz'
/**
 * Left out of the data-folder archive: the database (its own part), the lock, earlier restores' leftovers,
 * the buyers' stamped copies (a cache: stamped again on the next download) and files half written (the store
 * writes a temporary file and renames it).
 */
const NOT_FILES = ['./db', './codebook.lock', './db.before-restore-*', './files/stamped', '.*.tmp']

/**
 * A backup of one store into a new folder `outDir`: the database (PGlite: its data folder as PGlite dumps it,
 * taken with the store stopped, since PGlite is one process's; PostgreSQL: `pg_dump` in its custom format,
 * a consistent snapshot taken while the store runs) and the rest of DATA_DIR (uploaded covers, book files,
 * the generated auth secret), with a manifest. Throws if the folder exists or a tool fails.
 */
export async function createBackup(env: BackupEnv, outDir: string): Promise<BackupManifest> {
  if (fs.existsSync(outDir)) throw new Error(`${outDir} already exists: choose a new folder for the backup`)
  fs.mkdirSync(outDir, { recursive: true })
  const kind = env.DATABASE_URL ? 'postgres' : 'pglite'
  if (env.DATABASE_URL) {
    await run(pgTool('pg_dump'), [
      '--format=custom',
      '--no-owner',
      '--no-privileges',
      `--file=${path.join(outDir, POSTGRES_PART)}`,
      env.DATABASE_URL,
    ])
    await archiveDataDir(env.DATA_DIR, outDir, { online: true })
  } else {
    const lock = lockDataDir(env.DATA_DIR)
    try {
      const client = await PGlite.create(path.join(env.DATA_DIR, 'db'), { extensions: { pg_trgm } })
      try {
        const dump = await client.dumpDataDir('gzip')
        fs.writeFileSync(path.join(outDir, PGLITE_PART), Buffer.from(await dump.arrayBuffer()))
      } finally {
        await client.close()
      }
      await archiveDataDir(env.DATA_DIR, outDir)
    } finally {
      lock.release()
    }
  }
  const manifest: BackupManifest = {
    format: 1,
    database: kind,
    createdAt: new Date().toISOString(),
    parts: Object.fromEntries(
      fs.readdirSync(outDir).map((name) => [name, fs.statSync(path.join(outDir, name)).size]),
    ),
  }
  fs.writeFileSync(path.join(outDir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`)
  return manifest
}

/**
 * Puts a backup back. The database kind must match the configuration (a PGlite backup restores into
 * DATA_DIR/db, a PostgreSQL one into DATABASE_URL). Nothing is thrown away: PGlite's current folder is moved
 * to `db.before-restore-<time>`; PostgreSQL is restored in one transaction (`pg_restore --clean
 * --single-transaction`), so a failed restore leaves the database as it was. The data-folder files are
 * written over the current ones. The store must be stopped for PGlite (its lock is taken) and should be for
 * PostgreSQL (requests during a restore see the old or the new data, never half of it).
 */
export async function restoreBackup(env: BackupEnv, fromDir: string): Promise<BackupManifest> {
  const manifestPath = path.join(fromDir, MANIFEST)
  if (!fs.existsSync(manifestPath)) throw new Error(`${fromDir} is not a backup (no ${MANIFEST})`)
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as BackupManifest
  const kind = env.DATABASE_URL ? 'postgres' : 'pglite'
  if (manifest.format !== 1) throw new Error(`unknown backup format ${String(manifest.format)}`)
  if (manifest.database !== kind)
    throw new Error(
      `this backup is of a ${manifest.database} database, but the store is configured for ${kind} (DATABASE_URL)`,
    )
  fs.mkdirSync(env.DATA_DIR, { recursive: true })
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
    await extractDataDir(fromDir, env.DATA_DIR)
    return manifest
  }
  const lock = lockDataDir(env.DATA_DIR)
  try {
    const dbDir = path.join(env.DATA_DIR, 'db')
    if (fs.existsSync(dbDir))
      fs.renameSync(dbDir, `${dbDir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`)
    const dump = new Blob([fs.readFileSync(path.join(fromDir, PGLITE_PART))])
    const client = await PGlite.create(dbDir, { loadDataDir: dump, extensions: { pg_trgm } })
    await client.query('select 1')
    await client.close()
    await extractDataDir(fromDir, env.DATA_DIR)
  } finally {
    lock.release()
  }
  return manifest
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
    `--file=${path.join(outDir, FILES_PART)}`,
    ...NOT_FILES.map((pattern) => `--exclude=${pattern}`),
    ...(options.online ? ['--warning=no-file-changed', '--warning=no-file-removed'] : []),
    `--directory=${dataDir}`,
    '.',
  ]).catch((error: unknown) => {
    const someFilesChanged = (error as { code?: unknown }).code === 1
    if (!options.online || !someFilesChanged) throw error
  })
}

async function extractDataDir(fromDir: string, dataDir: string) {
  await run('tar', [
    '--extract',
    '--gzip',
    `--file=${path.join(fromDir, FILES_PART)}`,
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
