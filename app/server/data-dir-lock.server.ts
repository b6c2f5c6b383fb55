import fs from 'node:fs'
import path from 'node:path'

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError'
}

export type DataDirLock = { release(): void }

const LOCK_FILE = 'codebook.lock'

/**
 * PGlite has no lock of its own: two processes on one folder silently corrupt it. We hold an exclusive
 * lock file holding our pid; a lock whose process is gone (killed, crashed) is stale and taken over.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true })
  const lockPath = path.join(dataDir, LOCK_FILE)
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      // 'wx' fails if the file exists: creation is the atomic test-and-set.
      fs.writeFileSync(lockPath, `${process.pid}\n`, { flag: 'wx' })
      return { release: () => releaseIfOurs(lockPath) }
    } catch (error) {
      if (!isErrno(error, 'EEXIST')) throw error
    }
    const holder = readHolder(lockPath)
    if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
      throw new DataDirInUseError(
        `the store's data folder ${dataDir} is in use by process ${holder}; stop that process or set DATA_DIR to another folder`,
      )
    }
    // Stale (its process is gone) or unreadable (a crash mid-write): remove it and try again.
    fs.rmSync(lockPath, { force: true })
  }
  throw new DataDirInUseError(`could not lock the store's data folder ${dataDir}`)
}

function releaseIfOurs(lockPath: string) {
  if (readHolder(lockPath) === process.pid) fs.rmSync(lockPath, { force: true })
}

function readHolder(lockPath: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(lockPath, 'utf8'), 10)
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return isErrno(error, 'EPERM')
  }
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code
}
