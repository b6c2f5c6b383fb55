import fs from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { drizzle as drizzlePostgres } from 'drizzle-orm/node-postgres'
import { migrate as migratePostgres } from 'drizzle-orm/node-postgres/migrator'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import pg from 'pg'
import { findProjectRoot } from '../project-root.server.ts'
import * as schema from './schema/index.server.ts'

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>
/** What `db.transaction(async (tx) => …)` hands its callback: a Db whose statements run in the transaction. */
export type Transaction = Parameters<Parameters<Db['transaction']>[0]>[0]

export type DatabaseHandle = {
  db: Db
  kind: 'pglite' | 'postgres'
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>
  /** Applies every committed migration in `drizzle/` that has not run yet. */
  migrate(): Promise<void>
  close(): Promise<void>
  /** PostgreSQL: the connection pool's state now (for /metrics); PGlite has no pool. */
  poolStats?(): { total: number; idle: number; waiting: number; max: number }
}

export type DatabaseOptions =
  | { kind: 'postgres'; url: string; poolSize?: number }
  /**
   * `dataDir` undefined: an in-memory database (tests). `from`: start from a copy of another database's data
   * folder (PGlite's `dumpDataDir()`), e.g. one migrated and seeded once for a whole test run.
   */
  | { kind: 'pglite'; dataDir?: string; from?: Blob }

const migrationsFolder = path.join(findProjectRoot(), 'drizzle')
/** pg_advisory_lock's key for migrations: a constant no other lock of ours uses ('Code' in ASCII). */
const MIGRATION_LOCK_KEY = 0x436f6465

const exclusiveDatabases = new WeakSet<Db>()

/**
 * True when this process is the only writer of `db` (embedded PGlite: in memory, or a data folder held
 * under the DATA_DIR lock). Only then may a feature keep an in-process copy of data it writes itself: no
 * other process can change it behind our back. False for PostgreSQL, shared by several instances.
 */
export function isExclusiveDatabase(db: Db): boolean {
  return exclusiveDatabases.has(db)
}

/** The store's database as configured: the PostgreSQL server at DATABASE_URL, else PGlite in DATA_DIR/db. */
export function openConfiguredDatabase(env: {
  DATABASE_URL?: string
  DATA_DIR: string
}): Promise<DatabaseHandle> {
  return openDatabase(
    env.DATABASE_URL
      ? { kind: 'postgres', url: env.DATABASE_URL }
      : { kind: 'pglite', dataDir: path.join(env.DATA_DIR, 'db') },
  )
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.kind === 'postgres') {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
    })
    // An idle client losing its server (restart, failover) must not crash the process: the pool replaces it.
    pool.on('error', () => {})
    // Nor one checked out between two queries (a transaction awaiting the payment provider, the migration
    // lock's holder): the pool listens only to idle clients, and an 'error' nobody listens to ends the process.
    // Its next query fails instead (the request answers 503, server/unavailable.ts) and it is not reused.
    pool.on('connect', (client) => client.on('error', () => {}))
    const db = drizzlePostgres({ client: pool, schema })
    return {
      db,
      kind: 'postgres',
      ping: async () => void (await pool.query('select 1')),
      // Several instances starting at once: one runs the migrations, the others wait on the lock and then
      // find nothing left to run. The lock is held on a connection of its own, for the whole run.
      migrate: async () => {
        const lockHolder = await pool.connect()
        try {
          await lockHolder.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY])
          await migratePostgres(db, { migrationsFolder })
        } finally {
          await lockHolder.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {})
          lockHolder.release()
        }
      },
      poolStats: () => ({
        total: pool.totalCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
        max: pool.options.max,
      }),
      close: async () => {
        if (!pool.ended) await pool.end()
      },
    }
  }

  // PGlite cannot create nested parent folders itself.
  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true })
  const client = await PGlite.create(options.dataDir, { extensions: { pg_trgm }, loadDataDir: options.from })
  const db = drizzlePglite({ client, schema })
  exclusiveDatabases.add(db)
  return {
    db,
    kind: 'pglite',
    ping: async () => void (await client.query('select 1')),
    migrate: () => migratePglite(db, { migrationsFolder }),
    close: async () => {
      if (!client.closed) await client.close()
    },
  }
}
