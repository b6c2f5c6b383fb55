/**
 * `npm run drill:backup -- [--quick] [--db pglite|postgres] [--storage folder|s3]`: buyers check out (the seller's
 * identity set, so each order is invoiced as it is paid); `npm run backup` is taken (PostgreSQL: online, with
 * pg_dump, while the buyers go on; PGlite: with the store stopped, as it must be); then invoices, orders and users
 * are deleted and the store's book files too, `npm run restore` puts the backup back, and every user, account,
 * order, order line, library row, invoice (its PDF to the byte) and invoice counter that existed before the backup
 * started must be back, identical, and every file of the backup in the storage with its SHA-256. The store's
 * files are in DATA_DIR/files, or with `--storage s3` in a bucket on a real S3-compatible server (s3rver on
 * 127.0.0.1, STORAGE_URL). The store then starts on the restored data, a buyer sees their orders and a sample is
 * served from the storage. Prints the figures; exits 1 on any difference.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { commandLineActor } from '#app/features/admin/audit.server.ts'
import { readEditableStoreSettings, saveStoreSettings } from '#app/features/settings/store-settings.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { createS3Storage } from '#app/server/s3-storage.server.ts'
import { createLocalStorage, type FileStorage } from '#app/server/storage.server.ts'
import type { BackupManifest } from '#server/backup.ts'
import { S3RVER_CREDENTIALS, startTestS3 } from '#harness/s3-server.ts'
import { spawnStore, waitUntilReady, type StoreProcess } from '#harness/store-process.ts'
import {
  ensureBuild,
  loadAverage,
  newFigures,
  onExit,
  openDrillDatabase,
  parseDrillOptions,
  prepareDrillStore,
  request,
  runBuyer,
  runDrill,
  sleep,
  type BuyerRecord,
  type DbKind,
} from './lib.ts'

const {
  quick,
  db: kind,
  build,
  storage: storageKind = 'folder',
} = parseDrillOptions({
  name: 'backup',
  summary:
    'Buyers check out; `npm run backup` is taken, orders, users and book files deleted, `npm run restore` run: everything that existed before the backup must be back, identical.',
  options: {
    storage: {
      type: 'string',
      value: 'folder|s3',
      choices: ['folder', 's3'],
      help: "where the store's files live: DATA_DIR/files (default) or a bucket on a local S3 server (STORAGE_URL)",
    },
  },
})
const settings = quick
  ? { buyers: 8, concurrency: 3, loadMs: 6_000 }
  : { buyers: 30, concurrency: 4, loadMs: 20_000 }

/** The rows a backup must bring back, each table keyed by its primary key, compared as PostgreSQL's JSON. */
const TABLES = {
  user: 'id',
  account: 'id',
  orders: 'id',
  order_items: "order_id || '/' || book_id",
  library_items: "user_id || '/' || book_id",
  invoices: 'id',
  invoice_counters: "series || '/' || year",
  order_refunds: 'id',
} as const

type Snapshot = Record<keyof typeof TABLES, Map<string, string>>

async function snapshot(db: Db): Promise<Snapshot> {
  const result = {} as Snapshot
  for (const [table, key] of Object.entries(TABLES) as Array<[keyof typeof TABLES, string]>) {
    const { rows } = (await db.execute(
      sql.raw(`select (${key})::text as key, to_jsonb(t)::text as row from "${table}" t`),
    )) as unknown as { rows: Array<{ key: string; row: string }> }
    result[table] = new Map(rows.map((row) => [row.key, row.row]))
  }
  return result
}

/**
 * Columns that requests in flight may move on between the drill's snapshot and the start of an online dump
 * (a download counts itself, a payment takes the next invoice number): restored, they may only be further on;
 * every other column must be identical.
 */
const MOVING_COLUMNS: Partial<Record<keyof typeof TABLES, string[]>> = {
  library_items: ['download_count', 'last_downloaded_at'],
  invoice_counters: ['next_number'],
}

/** Every row of `before` is in `after`, identical (or, online, moved on): the differences, and the rows matched. */
function compare(before: Snapshot, after: Snapshot, online: boolean) {
  const problems: string[] = []
  let identical = 0
  let movedOn = 0
  for (const table of Object.keys(TABLES) as Array<keyof typeof TABLES>) {
    for (const [key, row] of before[table]) {
      const restored = after[table].get(key)
      if (restored === undefined) problems.push(`${table} ${key}: missing after the restore`)
      else if (restored === row) identical++
      else if (online && hasMovedOn(JSON.parse(row), JSON.parse(restored), MOVING_COLUMNS[table] ?? []))
        movedOn++
      else problems.push(`${table} ${key}: differs:\n      before ${row}\n      after  ${restored}`)
    }
  }
  return { problems, identical, movedOn }
}

function hasMovedOn(before: Record<string, unknown>, after: Record<string, unknown>, moving: string[]) {
  return Object.keys(before).every((column) => {
    if (!moving.includes(column)) return JSON.stringify(before[column]) === JSON.stringify(after[column])
    const [was, is] = [before[column], after[column]]
    if (was === null) return true
    if (typeof was === 'number') return typeof is === 'number' && is >= was
    return typeof is === 'string' && Date.parse(is) >= Date.parse(String(was))
  })
}

const count = (snap: Snapshot) =>
  Object.entries(snap)
    .map(([table, rows]) => `${table} ${rows.size}`)
    .join(', ')

/**
 * Deletes every invoice, order (with its lines, refunds and library rows) and buyer (with their accounts and
 * sessions). Invoices are immutable and keep their orders (decision 037): they go the one way an operator may
 * remove issued documents, as the table's owner with the immutability trigger disabled for that one transaction,
 * credit notes before the invoices they credit.
 */
async function damage(db: Db, buyers: BuyerRecord[]) {
  const ids = sql.join(
    buyers.map((buyer) => sql`${buyer.userId}`),
    sql`, `,
  )
  await db.transaction(async (tx) => {
    await tx.execute(sql`alter table invoices disable trigger invoices_immutable`)
    await tx.execute(sql`delete from invoices where kind = 'credit_note'`)
    await tx.execute(sql`delete from invoices`)
    await tx.execute(sql`alter table invoices enable trigger invoices_immutable`)
  })
  await db.execute(sql`delete from invoice_counters`)
  await db.execute(sql`delete from order_refunds`)
  await db.execute(sql`delete from library_items`)
  await db.execute(sql`delete from order_items`)
  await db.execute(sql`delete from email_outbox`)
  await db.execute(sql`delete from orders`)
  await db.execute(sql`delete from "user" where id in (${ids})`)
}

/** The seller's legal identity, so that every order the buyers pay is invoiced as it is paid. */
async function setSeller(db: Db) {
  const { settings, version } = await readEditableStoreSettings(db)
  const { logo: _logo, ...edited } = settings
  const saved = await saveStoreSettings(db, commandLineActor, version, {
    ...edited,
    legalName: 'CodeBook Drill GmbH',
    postalAddress: 'Hauptstraße 1\n10115 Berlin\nGermany',
  })
  if (saved.outcome !== 'saved') throw new Error('could not set the seller for the drill')
}

/** `npm run backup|restore -- <folder>` as an operator runs it, with the store's configuration. */
function npmRun(script: 'backup' | 'restore', folder: string, env: Record<string, string>) {
  return new Promise<number>((resolve, reject) => {
    const started = performance.now()
    const child = spawn('npm', ['run', '--silent', script, '--', folder], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`npm run ${script} exited ${code}:\n${output}`)),
    )
  })
}

function folderSize(folder: string): number {
  return fs.readdirSync(folder, { withFileTypes: true }).reduce((sum, entry) => {
    const full = path.join(entry.parentPath, entry.name)
    return sum + (entry.isDirectory() ? folderSize(full) : fs.statSync(full).size)
  }, 0)
}

/**
 * The store's files as the drill reaches them: the folder DATA_DIR/files, or the bucket of a local S3 server
 * started for the drill (and the environment that points the store and the scripts at it).
 */
async function openStoreFiles(
  dataDir: string,
): Promise<{ storage: FileStorage; env: Record<string, string> }> {
  if (storageKind === 'folder') return { storage: createLocalStorage(path.join(dataDir, 'files')), env: {} }
  const s3 = await startTestS3('codebook-drill')
  onExit(() => s3.stop())
  return {
    storage: createS3Storage(s3.client, { bucket: s3.bucket, prefix: 'store/' }),
    env: {
      STORAGE_URL: `s3://${s3.bucket}/store`,
      S3_ENDPOINT: s3.endpoint,
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    },
  }
}

/** Every file the backup's manifest lists is in the storage with its SHA-256: the problems, and the files matched. */
async function compareFiles(storage: FileStorage, backupDir: string) {
  const manifest = JSON.parse(
    fs.readFileSync(path.join(backupDir, 'manifest.json'), 'utf8'),
  ) as BackupManifest
  const problems: string[] = manifest.files.missing.map(
    (key) => `file ${key}: named by the database, not backed up`,
  )
  let identical = 0
  for (const [key, expected] of Object.entries(manifest.files.list)) {
    const bytes = await storage.read(key)
    if (!bytes) problems.push(`file ${key}: missing after the restore`)
    else if (createHash('sha256').update(bytes).digest('hex') !== expected.sha256)
      problems.push(`file ${key}: differs after the restore`)
    else identical++
  }
  return { problems, identical, count: manifest.files.count }
}

await runDrill(async () => {
  ensureBuild(build)
  const started = performance.now()
  const prepared = await prepareDrillStore('backup', kind, settings.buyers)
  const { where, buyers, books } = prepared
  await withDatabase(kind, where, setSeller)
  const files = await openStoreFiles(where.dataDir)
  const env = { ...prepared.env, ...files.env }
  const backupDir = path.join(path.dirname(where.dataDir), 'backup')
  let store: StoreProcess = await spawnStore(env)
  onExit(() => store.stop('SIGKILL'))
  await waitUntilReady(store)

  const figures = newFigures()
  let done = false
  const queue = [...buyers]
  const load = Promise.all(
    Array.from({ length: settings.concurrency }, async () => {
      for (let buyer = queue.shift(); buyer && !done; buyer = queue.shift())
        await runBuyer(buyer, {
          baseUrl: () => store.url,
          books,
          figures,
          whenUp: () => sleep(250),
          until: () => done,
        })
    }),
  )
  await sleep(settings.loadMs)

  let before: Snapshot
  let backupMs: number
  if (kind === 'postgres') {
    // Online: the buyers go on during the dump; what was committed before it started must be in it.
    const database = await openDrillDatabase(kind, where)
    before = await snapshot(database.db).finally(() => database.close())
    backupMs = await npmRun('backup', backupDir, env)
    await sleep(1_000)
    done = true
    await load
    await store.stop('SIGTERM')
  } else {
    // PGlite belongs to one process: the store is stopped for the backup.
    done = true
    await load
    await store.stop('SIGTERM')
    const database = await openDrillDatabase(kind, where)
    before = await snapshot(database.db).finally(() => database.close())
    backupMs = await npmRun('backup', backupDir, env)
  }
  const beforeRestore = await withDatabase(kind, where, async (db) => {
    await damage(db, buyers)
    return snapshot(db)
  })
  // The book files gone too (the seed's editions and their samples).
  let filesDeleted = 0
  for await (const file of files.storage.list('books/')) {
    await files.storage.delete(file.key)
    filesDeleted++
  }
  const restoreMs = await npmRun('restore', backupDir, env)
  const after = await withDatabase(kind, where, snapshot)
  const { problems, identical, movedOn } = compare(before, after, kind === 'postgres')
  const restoredFiles = await compareFiles(files.storage, backupDir)
  problems.push(...restoredFiles.problems)
  // Orders were made and invoiced, or the drill proved nothing about them.
  if (before.orders.size === 0 || before.invoices.size === 0)
    problems.push(
      `the buyers made ${before.orders.size} orders and ${before.invoices.size} invoices: none to restore`,
    )

  // The store on the restored data: a buyer's session still holds, and their orders are listed.
  store = await spawnStore(env)
  await waitUntilReady(store)
  const buyer = buyers.find((candidate) => candidate.confirmed.size > 0)
  if (buyer) {
    const orders = await request(`${store.url}/account/orders`, { headers: { Cookie: buyer.cookie } })
    const listed = [...buyer.confirmed].filter((orderId) => orders.text.includes(`/orders/${orderId}`)).length
    if (orders.status !== 200 || listed === 0)
      problems.push(
        `after the restore, a buyer's orders page answered ${orders.status} listing ${listed} orders`,
      )
  }
  // A sample is read from the storage, as restored.
  const sample = await request(`${store.url}/books/${books[0]!.slug}/sample.pdf`)
  if (sample.status !== 200) problems.push(`after the restore, a book's sample answered ${sample.status}`)
  await store.stop('SIGTERM')

  console.log(`
drill:backup (${kind}, files in ${storageKind === 's3' ? 'S3 (s3rver)' : 'the folder'}${quick ? ', quick' : ''}) — ${Math.round((performance.now() - started) / 1000)} s, load average ${loadAverage()}
  checkouts during the drill:  ${figures.checkoutsAttempted} (${buyers.reduce((n, b) => n + b.confirmed.size, 0)} confirmed, ${before.invoices.size} invoiced)
  rows before the backup:      ${count(before)}
  backup:                      ${Math.round(backupMs)} ms${kind === 'postgres' ? ' (online, under load)' : ' (store stopped)'}, ${Math.round(folderSize(backupDir) / 1024)} KiB
  after the damage:            ${count(beforeRestore)}
  files backed up:             ${restoredFiles.count} (the book files, ${filesDeleted} of them deleted by the damage)
  restore:                     ${Math.round(restoreMs)} ms
  after the restore:           ${count(after)}
  rows back and identical:     ${identical} of ${Object.values(before).reduce((n, rows) => n + rows.size, 0)}${kind === 'postgres' ? ` (+ ${movedOn} whose download or invoice counter moved on before the dump began)` : ''}
  files back and identical:    ${restoredFiles.identical} of ${restoredFiles.count}
  problems:                    ${problems.length === 0 ? 'none' : problems.length}`)
  for (const problem of problems.slice(0, 20)) console.log(`    - ${problem}`)
  return problems.length === 0 && identical > 0 && restoredFiles.identical > 0
})

async function withDatabase<T>(
  kind: DbKind,
  where: { dataDir: string; url?: string },
  read: (db: Db) => Promise<T>,
) {
  const database = await openDrillDatabase(kind, where)
  try {
    return await read(database.db)
  } finally {
    await database.close()
  }
}
