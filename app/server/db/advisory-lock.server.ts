import { sql } from 'drizzle-orm'
import { isExclusiveDatabase, type Db } from './database.server.ts'

/**
 * The names of the store's advisory locks held across processes. `fileSweep`: one instance sweeps old files at a
 * time (features/files), and a backup of a running store holds it shared while it copies the files
 * (server/backup.ts), so no file the dump names is swept before it is copied.
 */
export const advisoryLocks = { fileSweep: 'codebook:file-sweep' } as const

/**
 * Runs `work` while this process holds the named PostgreSQL advisory lock, or returns `{ locked: false }` at once
 * when another instance (or a backup, which takes the same lock shared) holds it: for a job one instance at a
 * time should do, such as the sweep of old files. The lock is a transaction's (`pg_try_advisory_xact_lock`), so
 * a process that dies mid-run frees it with its connection; `work` gets that transaction and must run its
 * queries there (READ COMMITTED: each statement sees what is committed now). The transaction takes no row locks
 * and no transaction id, so holding it open for a run blocks nobody.
 *
 * The embedded database (PGlite) belongs to this one process: nobody else can run the job, and a transaction
 * there would hold up every request for the whole run, so `work` runs on the database itself.
 */
export async function withTryAdvisoryLock<T>(
  db: Db,
  name: string,
  work: (db: Db) => Promise<T>,
): Promise<{ locked: true; value: T } | { locked: false }> {
  if (isExclusiveDatabase(db)) return { locked: true, value: await work(db) }
  return db.transaction(async (tx) => {
    const result = (await tx.execute(
      sql`select pg_try_advisory_xact_lock(${advisoryLockKey(name)}) as locked`,
    )) as unknown as { rows: { locked: boolean }[] }
    if (!result.rows[0]?.locked) return { locked: false as const }
    return { locked: true as const, value: await work(tx) }
  })
}

/**
 * The 64-bit key PostgreSQL's advisory locks take for a name, as SQL: the same expression in every process and
 * in `psql` (`select pg_advisory_lock_shared(hashtextextended('codebook:file-sweep', 0))`).
 */
export function advisoryLockKey(name: string) {
  return sql`hashtextextended(${name}, 0)`
}
