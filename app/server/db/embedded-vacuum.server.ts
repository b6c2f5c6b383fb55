import { sql } from 'drizzle-orm'
import type { Logger } from '../logger.server.ts'
import type { Db } from './database.server.ts'

/**
 * Autovacuum for the embedded database. PostgreSQL's autovacuum is a background process of the server; PGlite
 * runs one backend in our process and has none, so without this the embedded store never vacuums nor analyzes:
 * every cart change, rate-limit hit and session write leaves dead row versions and index entries behind for
 * ever, and the planner's statistics stay those of the day the tables were made. The soak drill saw it as a
 * store that slowed down by the minute on PGlite and not on PostgreSQL (docs/decisions/022).
 *
 * Every `intervalMs` it reads the tables' counters (`pg_stat_user_tables`) and applies PostgreSQL's own rules
 * with its default settings: VACUUM a table once its dead rows pass 50 + 20 % of its rows, or the rows inserted
 * since its last vacuum pass 1,000 + 20 % (so the visibility map keeps up with insert-only tables); ANALYZE it
 * once the rows changed since the last analysis pass 50 + 10 %. A pass blocks the embedded database while it
 * runs (one backend), which on tables of the store's sizes is milliseconds.
 */
export function startEmbeddedVacuum(options: { db: Db; logger: Logger; intervalMs?: number }): {
  stop(): Promise<void>
} {
  const { db, logger, intervalMs = 60_000 } = options
  let running: Promise<void> | undefined
  const pass = () => {
    running ??= vacuumWhereDue(db)
      .then((done) => {
        if (done.length > 0) logger.debug({ tables: done }, 'embedded database vacuumed')
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'could not vacuum the embedded database'))
      .finally(() => (running = undefined))
  }
  const timer = setInterval(pass, intervalMs).unref()
  return {
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}

type TableCounters = {
  table: string
  live: number
  dead: number
  insertedSinceVacuum: number
  changedSinceAnalyze: number
}

/** One pass: what PostgreSQL's autovacuum would do now. Returns what was done, per table. */
export async function vacuumWhereDue(db: Db): Promise<{ table: string; action: 'vacuum' | 'analyze' }[]> {
  const { rows } = (await db.execute(sql`
    select relname as "table", n_live_tup::int as live, n_dead_tup::int as dead,
      n_ins_since_vacuum::int as "insertedSinceVacuum", n_mod_since_analyze::int as "changedSinceAnalyze"
    from pg_stat_user_tables where schemaname = 'public'`)) as { rows: TableCounters[] }
  const done: { table: string; action: 'vacuum' | 'analyze' }[] = []
  for (const counters of rows) {
    const action = dueAction(counters)
    if (!action) continue
    const table = sql.identifier(counters.table)
    await db.execute(action === 'vacuum' ? sql`vacuum (analyze) ${table}` : sql`analyze ${table}`)
    done.push({ table: counters.table, action })
  }
  return done
}

/** PostgreSQL's autovacuum rules with its default thresholds and scale factors. */
export function dueAction(counters: Omit<TableCounters, 'table'>): 'vacuum' | 'analyze' | undefined {
  const { live, dead, insertedSinceVacuum, changedSinceAnalyze } = counters
  if (dead > 50 + 0.2 * live || insertedSinceVacuum > 1_000 + 0.2 * live) return 'vacuum'
  if (changedSinceAnalyze > 50 + 0.1 * live) return 'analyze'
  return undefined
}
