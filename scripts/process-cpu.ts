import fs from 'node:fs'

/**
 * A process's CPU time so far (user + system, ms; Linux's /proc, 100 ticks a second): a page's own cost, which
 * other load on a shared machine skews far less than it does req/s. Undefined elsewhere.
 */
export function cpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return undefined
  }
}
