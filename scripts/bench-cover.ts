/**
 * `npx tsx scripts/bench-cover.ts [--runs 3]`: what resizing an uploaded cover costs (resizeCover, the upload
 * route's work): wall time and the growth of the process's peak RSS, for a 7000 × 7000 PNG of ~150 KB (the
 * decompression bomb of issue 28), a 6000 × 6600 PNG just under the 40-megapixel limit and an ordinary
 * 2000 × 3000 JPEG cover. Each case runs in a fresh process (peak RSS is per process). Prints; asserts nothing.
 * Figures: docs/measurements/012-cover-resizing.md.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import sharp from 'sharp'
import { resizeCover } from '#app/features/catalog/covers.server.ts'
import { createWorkQueue } from '#app/server/work-queue.server.ts'

const caseIndex = process.argv.indexOf('--case')
if (caseIndex > 0) {
  const bytes = new Uint8Array(fs.readFileSync(process.argv[caseIndex + 1]!))
  global.gc?.()
  const rssBefore = process.memoryUsage().rss
  const started = performance.now()
  const outcome = await resizeCover(
    createWorkQueue({ concurrency: 1, maxWaiting: 0 }),
    crypto.randomUUID(),
    bytes,
  )
  const ms = performance.now() - started
  const peak = process.resourceUsage().maxRSS * 1024
  console.log(
    JSON.stringify({
      outcome: outcome.ok ? 'resized' : outcome.problem,
      ms,
      addedMB: (peak - rssBefore) / 2 ** 20,
    }),
  )
  process.exit(0)
}

const runsIndex = process.argv.indexOf('--runs')
const runs = runsIndex > 0 ? Number(process.argv[runsIndex + 1]) : 3
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-bench-cover-'))
const gradient = (width: number, height: number) => {
  const pixels = Buffer.alloc(width * height * 3)
  for (let index = 0; index < pixels.length; index++)
    pixels[index] = ((index * 7) % 256) ^ ((index >> 12) & 255)
  return sharp(pixels, { raw: { width, height, channels: 3 } })
}
const inputs: [string, Promise<Buffer>][] = [
  [
    '7000×7000 PNG',
    sharp({ create: { width: 7000, height: 7000, channels: 3, background: '#3366aa' } })
      .png({ compressionLevel: 9 })
      .toBuffer(),
  ],
  [
    '6000×6600 PNG (39.6 MP)',
    sharp({ create: { width: 6000, height: 6600, channels: 4, background: '#3366aa80' } })
      .png({ compressionLevel: 9 })
      .toBuffer(),
  ],
  ['2000×3000 JPEG', gradient(2000, 3000).jpeg({ quality: 85 }).toBuffer()],
]
const self = fileURLToPath(import.meta.url)
try {
  for (const [name, made] of inputs) {
    const file = path.join(dir, `${inputs.findIndex(([other]) => other === name)}.img`)
    const bytes = await made
    fs.writeFileSync(file, bytes)
    const results = Array.from({ length: runs }, () => {
      const output = execFileSync(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', self, '--case', file],
        {
          encoding: 'utf8',
        },
      )
      return JSON.parse(output.trim().split('\n').at(-1)!) as { outcome: string; ms: number; addedMB: number }
    })
    const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!
    console.log(
      `${name.padEnd(24)} ${String(Math.round(bytes.length / 1024)).padStart(5)} KB  ${results[0]!.outcome.padEnd(14)}` +
        ` median ${String(Math.round(median(results.map((r) => r.ms)))).padStart(6)} ms` +
        `  peak RSS +${Math.round(median(results.map((r) => r.addedMB)))} MB  (${runs} runs, load ${os.loadavg()[0]!.toFixed(1)})`,
    )
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
