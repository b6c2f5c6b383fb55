import { loadStampedCopiesInUse, type StampedCopyUse } from '#app/features/library/files-in-use.server.ts'
import { advisoryLocks, withTryAdvisoryLock } from '#app/server/db/advisory-lock.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import type { Logger } from '#app/server/logger.server.ts'
import type { FileStorage, StoredFileInfo } from '#app/server/storage.server.ts'
import { listFilesInUse, namedFolders } from './files-in-use.server.ts'

/**
 * The sweep of old files (issue 32; what it keeps and why: docs/decisions/034-object-storage.md). Run hourly by
 * every instance (app/startup.server.ts); one at a time sweeps (an advisory lock), the others skip the hour.
 */
export type FileSweepLimits = {
  /** At most this many files deleted per run; the rest wait for the next run. */
  maxDeletions: number
  /** A run stops after this long, listing or deleting, and the next run goes on from about there. */
  timeBudgetMs: number
  /** A file written more recently is never deleted: it may belong to a publish or an upload still in progress. */
  minAgeMs: number
  /** A buyer's stamped copy neither written nor downloaded for this long is deleted (stamped again if asked). */
  stampedIdleMs: number
}

const HOUR = 60 * 60 * 1000
export const fileSweepLimits: FileSweepLimits = {
  maxDeletions: 500,
  timeBudgetMs: 30_000,
  minAgeMs: HOUR,
  stampedIdleMs: 30 * 24 * HOUR,
}

/** Why a file was deleted, as the log says it. */
export type SweepReason =
  /** In a named folder (books, editions, covers, authors, logos) and named by no row. */
  | 'named-by-no-row'
  /** A stamped copy nobody is served again: refunded, an earlier edition or stamp, a changed email, a deleted account. */
  | 'stamped-not-served'
  /** A stamped copy still served, but neither written nor downloaded for `stampedIdleMs`. */
  | 'stamped-idle'

export type FileSweepRun = {
  /** False: another instance was sweeping (or a backup copying), nothing was looked at. */
  ran: boolean
  examined: number
  deleted: { key: string; reason: SweepReason; size: number }[]
  /** Why it stopped: the listing's end, the deletion bound or the time budget (the next run goes on). */
  stoppedBy: 'end' | 'deletions' | 'time' | null
}

/**
 * A sweep for one process: `run()` deletes at most `maxDeletions` old files within `timeBudgetMs`. A run that
 * stops at a bound remembers how far down the listing it got, and the next run skips that many files before it
 * judges any (both back ends list in the same order each time while the files do not change), so a long listing
 * is swept over several runs instead of its head again and again; a listing's end starts the next run at the top.
 */
export function createFileSweep(options: {
  db: Db
  storage: FileStorage
  logger: Logger
  limits?: Partial<FileSweepLimits>
  now?: () => Date
}) {
  const { db, storage, logger } = options
  const limits = { ...fileSweepLimits, ...options.limits }
  const now = options.now ?? (() => new Date())
  let resumeAt = 0

  async function sweep(tx: Db): Promise<Omit<FileSweepRun, 'ran'>> {
    const started = performance.now()
    const outOfTime = () => performance.now() - started > limits.timeBudgetMs
    const at = now().getTime()
    let filesInUse = await listFilesInUse(tx)
    const stampedInUse = await loadStampedCopiesInUse(tx)

    // First the listing, judged against the rows as read above: at most maxDeletions candidates.
    const candidates: { file: StoredFileInfo; reason: SweepReason; position: number }[] = []
    // How far down the listing this run got: the files skipped (judged by an earlier run) and those judged.
    let position = 0
    let examined = 0
    let stoppedBy: FileSweepRun['stoppedBy'] = 'end'
    for await (const file of storage.list('')) {
      if (position < resumeAt) {
        position++
        continue
      }
      if (outOfTime()) {
        stoppedBy = 'time'
        break
      }
      examined++
      const reason = judge(file, { at, limits, filesInUse, stampedInUse })
      if (reason) candidates.push({ file, reason, position })
      position++
      if (candidates.length >= limits.maxDeletions) {
        stoppedBy = 'deletions'
        break
      }
    }
    // Then the rows again, just before deleting: a file a row came to name meanwhile (an upload of the very
    // image an old orphan holds, a start-up listing a seed book's files) is kept.
    if (candidates.some(({ reason }) => reason === 'named-by-no-row')) filesInUse = await listFilesInUse(tx)
    const deleted: FileSweepRun['deleted'] = []
    // Where the next run starts judging: the top after a whole listing, else where this one stopped.
    let resumeFrom = stoppedBy === 'end' ? 0 : position
    for (const { file, reason, position: listedAt } of candidates) {
      if (outOfTime()) {
        stoppedBy = 'time'
        resumeFrom = listedAt
        break
      }
      if (reason === 'named-by-no-row' && filesInUse.has(file.key)) continue
      await storage.delete(file.key)
      deleted.push({ key: file.key, reason, size: file.size })
      logger.info(
        { key: file.key, reason, bytes: file.size, modifiedAt: file.modifiedAt.toISOString() },
        'swept an old file',
      )
    }
    // Every file deleted was listed before that point: the listing is that much shorter next time.
    resumeAt = resumeFrom === 0 ? 0 : resumeFrom - deleted.length
    return { examined, deleted, stoppedBy }
  }

  return {
    async run(): Promise<FileSweepRun> {
      const outcome = await withTryAdvisoryLock(db, advisoryLocks.fileSweep, sweep)
      if (!outcome.locked) return { ran: false, examined: 0, deleted: [], stoppedBy: null }
      const run = { ran: true, ...outcome.value }
      if (run.stoppedBy !== 'end')
        logger.info(
          { examined: run.examined, deleted: run.deleted.length, stoppedBy: run.stoppedBy },
          'the sweep of old files stopped at its bound; the next run goes on',
        )
      return run
    },
  }
}

/** Why a listed file should go, or null to keep it. */
export function judge(
  file: StoredFileInfo,
  context: {
    at: number
    limits: Pick<FileSweepLimits, 'minAgeMs' | 'stampedIdleMs'>
    filesInUse: ReadonlySet<string>
    stampedInUse: (key: string) => StampedCopyUse
  },
): SweepReason | null {
  const { at, limits, filesInUse, stampedInUse } = context
  if (at - file.modifiedAt.getTime() < limits.minAgeMs) return null
  const folder = file.key.slice(0, file.key.indexOf('/'))
  if (folder === 'stamped') {
    const use = stampedInUse(file.key)
    if (!use.served) return 'stamped-not-served'
    const lastUsed = Math.max(file.modifiedAt.getTime(), use.lastDownloadedAt ?? 0)
    return at - lastUsed > limits.stampedIdleMs ? 'stamped-idle' : null
  }
  if ((namedFolders as readonly string[]).includes(folder))
    return filesInUse.has(file.key) ? null : 'named-by-no-row'
  // A folder this sweep does not know (a later feature's): never its to delete.
  return null
}
