import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { expect, test } from 'vitest'
import { processCpuMs } from '#harness/cluster-process.ts'
import { cpuQuotaHierarchy, limitCpu } from '#harness/cpu-limit.ts'

// The quota `npm run bench -- --instances 1,2 --cpu-share S` puts on each store instance (harness/cpu-limit.ts):
// a process spinning flat out gets no more than its share of a core, on the core it was pinned to, and is free of
// both when released.
const unavailable = cpuQuotaHierarchy()

test.skipIf(typeof unavailable === 'string')(
  `a process under a quota of 0.2 of a core, pinned to the first, uses at most that (${typeof unavailable === 'string' ? unavailable : 'cgroups'})`,
  async () => {
    const spinner = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })
    const exited = new Promise((resolve) => spinner.once('exit', resolve))
    const busyFor = async (ms: number) => {
      const before = processCpuMs(spinner.pid)!
      await new Promise((resolve) => setTimeout(resolve, ms))
      return processCpuMs(spinner.pid)! - before
    }
    try {
      const cgroups = () => fs.readFileSync(`/proc/${spinner.pid}/cgroup`, 'utf8')
      const cpus = () =>
        /Cpus_allowed_list:\s*(\S+)/.exec(fs.readFileSync(`/proc/${spinner.pid}/status`, 'utf8'))?.[1]
      const allCpus = cpus()
      const limit = limitCpu(spinner.pid!, 0.2, { cpu: 0 })
      expect(cgroups()).toContain(`codebook-cpu-${spinner.pid}`)
      expect(cpus()).toBe('0')
      // 15 periods of 100 ms: at most 0.2 × 1.5 s, with a period's share and /proc's 10 ms ticks of slack.
      const limited = await busyFor(1_500)
      limit.release()
      expect(limited).toBeLessThanOrEqual(0.2 * 1_500 + 40)
      expect(limited).toBeGreaterThan(0)
      expect(cgroups()).not.toContain('codebook-cpu-')
      expect(cpus()).toBe(allCpus)
    } finally {
      spinner.kill('SIGKILL')
      await exited
    }
  },
)
