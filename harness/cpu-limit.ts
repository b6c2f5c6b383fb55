import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

// A CPU quota for one process through Linux's cgroups (v2, or v1's `cpu` controller): what a container's
// `--cpus` sets. `npm run bench -- --instances 1,2 --cpu-share 0.5` gives each store instance the same share of
// a core whether it runs alone or beside others, so that 1 against 2 instances measures the store's scaling
// rather than how the scheduler shares two cores between the instances, PostgreSQL, nginx and the load
// generator (docs/decisions/022-scale-out.md).

/** The quota is renewed every period: 100 ms, as Docker's `--cpus` and Kubernetes' CPU limits set it. */
const PERIOD_US = 100_000

export type CpuLimit = {
  /** Moves the process back to the cgroup it came from and removes the quota's cgroup. */
  release(): void
}

type Hierarchy = { version: 1 | 2; root: string }

/** Where a cgroup with a CPU quota can be made, or why none can. */
export function cpuQuotaHierarchy(): Hierarchy | string {
  if (process.platform !== 'linux') return 'CPU quotas need Linux cgroups'
  let mounts: string[]
  try {
    mounts = fs.readFileSync('/proc/self/mounts', 'utf8').split('\n')
  } catch {
    return 'cannot read /proc/self/mounts'
  }
  for (const line of mounts) {
    const [, mountPoint, type, options] = line.split(' ')
    if (!mountPoint) continue
    if (type === 'cgroup' && options?.split(',').includes('cpu'))
      return check({ version: 1, root: mountPoint })
    if (
      type === 'cgroup2' &&
      readable(path.join(mountPoint, 'cgroup.controllers')).split(' ').includes('cpu')
    )
      return check({ version: 2, root: mountPoint })
  }
  return 'no cgroup hierarchy with the cpu controller is mounted'
}

function check(hierarchy: Hierarchy): Hierarchy | string {
  try {
    fs.accessSync(hierarchy.root, fs.constants.W_OK)
    return hierarchy
  } catch {
    return `${hierarchy.root} is not writable (run as root)`
  }
}

/**
 * Limits process `pid` (all its threads) to `share` of one core until released; with `cpu`, also pins it to
 * that core (then it shares that core only with what else is pinned there).
 */
export function limitCpu(pid: number, share: number, options: { cpu?: number } = {}): CpuLimit {
  if (!(share > 0)) throw new Error(`a CPU share must be above 0 (was ${share})`)
  const hierarchy = cpuQuotaHierarchy()
  if (typeof hierarchy === 'string') throw new Error(`cannot limit CPU: ${hierarchy}`)
  const group = path.join(hierarchy.root, `codebook-cpu-${pid}`)
  fs.mkdirSync(group)
  const quota = Math.max(1_000, Math.round(share * PERIOD_US))
  try {
    if (hierarchy.version === 1) {
      fs.writeFileSync(path.join(group, 'cpu.cfs_period_us'), String(PERIOD_US))
      fs.writeFileSync(path.join(group, 'cpu.cfs_quota_us'), String(quota))
    } else {
      // v2 hands a controller to children only when the parent lists it in subtree_control.
      fs.writeFileSync(path.join(hierarchy.root, 'cgroup.subtree_control'), '+cpu')
      fs.writeFileSync(path.join(group, 'cpu.max'), `${quota} ${PERIOD_US}`)
    }
    fs.writeFileSync(path.join(group, 'cgroup.procs'), String(pid))
    if (options.cpu !== undefined) pin(pid, String(options.cpu))
  } catch (error) {
    fs.rmdirSync(group)
    throw error
  }
  return {
    release() {
      if (options.cpu !== undefined) pin(pid, `0-${os.cpus().length - 1}`, { ignoreExited: true })
      try {
        fs.writeFileSync(path.join(hierarchy.root, 'cgroup.procs'), String(pid))
      } catch {
        // The process has exited: its cgroup is empty already.
      }
      // A cgroup is removed with rmdir (its files are the kernel's), once no process is left in it.
      fs.rmdirSync(group)
    },
  }
}

/**
 * Every thread of `pid`, and with `withChildren` of its child processes, on `cpus` ('1', '0-1'); processes it
 * starts later inherit it. For the processes a benchmark keeps off the cores it measures.
 */
export function pinProcess(pid: number, cpus: string, { withChildren = false } = {}) {
  pin(pid, cpus)
  if (withChildren) for (const child of childPids(pid)) pin(child, cpus, { ignoreExited: true })
}

function childPids(pid: number): number[] {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return []
    const stat = readable(`/proc/${entry}/stat`)
    return stat.split(') ')[1]?.split(' ')[1] === String(pid) ? [Number(entry)] : []
  })
}

/** Every thread of `pid` on `cpus` (util-linux's taskset). */
function pin(pid: number, cpus: string, { ignoreExited = false } = {}) {
  const result = spawnSync('taskset', ['--all-tasks', '--pid', '--cpu-list', cpus, String(pid)], {
    encoding: 'utf8',
  })
  if (result.status !== 0 && !ignoreExited)
    throw new Error(`taskset could not pin ${pid} to CPU ${cpus}: ${result.error ?? result.stderr}`)
}

function readable(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim()
  } catch {
    return ''
  }
}
