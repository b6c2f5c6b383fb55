import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Db } from '#app/server/db/database.server.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

export type StoreProcess = {
  url: string
  child: ChildProcess
  dataDir: string
  /** Everything the process printed so far (stdout and stderr). */
  output(): string
  /** Resolves with the exit code. */
  exited: Promise<number | null>
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

export function tempDataDir(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-e2e-')), 'data')
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
    server.once('error', reject)
  })
}

/**
 * The flags `npm start` gives Node (package.json's `start` script: the heap's bound, docs/decisions/022), so a
 * store started here runs as one started by hand does.
 */
export function startNodeFlags(): string[] {
  const packageJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: { start: string }
  }
  const [node, ...args] = packageJson.scripts.start.split(/\s+/)
  if (node !== 'node' || args.at(-1) !== 'scripts/start.mjs')
    throw new Error(
      `package.json's start script is not \`node [flags] scripts/start.mjs\`: ${packageJson.scripts.start}`,
    )
  return args.slice(0, -1)
}

/** Runs the production build as `npm start` would (without the build step), as a real process. */
export async function spawnStore(
  env: Record<string, string> = {},
  options: { discardOutput?: boolean } = {},
): Promise<StoreProcess> {
  const entry = path.join(root, 'build', 'server', 'index.js')
  if (!fs.existsSync(entry)) throw new Error('No production build: run `npm run build` first.')
  const port = env.PORT ?? String(await freePort())
  const dataDir = env.DATA_DIR ?? tempDataDir()
  // STORE_NODE_ARGS passes flags to the store's Node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile a bench.
  const child = spawn(
    process.execPath,
    [
      ...startNodeFlags(),
      ...(process.env.STORE_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      path.join(root, 'scripts', 'start.mjs'),
      '--no-build',
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        ...env,
        PORT: port,
        DATA_DIR: dataDir,
      },
      // Benchmarks discard the logs (as a log shipper would take them) instead of buffering them here.
      stdio: ['ignore', options.discardOutput ? 'ignore' : 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    dataDir,
    output: () => output,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}

/** Waits until /readyz answers 200, or fails with what the process printed. */
export async function waitUntilReady(store: StoreProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let exitCode: number | null | undefined
  void store.exited.then((code) => (exitCode = code))
  while (Date.now() < deadline) {
    if (exitCode !== undefined)
      throw new Error(`the store exited (${exitCode}) before it was ready:\n${store.output()}`)
    try {
      if ((await fetch(`${store.url}/readyz`)).status === 200) return
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`the store was not ready after ${timeoutMs} ms:\n${store.output()}`)
}

/**
 * A store of its own whose owner registered (and confirmed the email) before it started and is made an admin by ADMIN_EMAILS, as an
 * owner sets one up: for tests that change the catalogue, which the shared e2e store's other tests read.
 */
export async function startStoreWithAdmin(
  env: Record<string, string> = {},
  /** Data to put in the database before the store starts (e.g. orders made earlier). */
  prepare?: (db: Db) => Promise<void>,
) {
  // Imported here so that the store-process helpers stay light for the tests that do not need a database.
  const { openDatabase } = await import('#app/server/db/database.server.ts')
  const { createReader, testPassword } = await import('#harness/factories/buyers.ts')
  const dataDir = env.DATA_DIR ?? tempDataDir()
  const admin = { email: `owner-${crypto.randomUUID().slice(0, 8)}@codebook.test`, password: testPassword }
  const database = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'db') })
  await database.migrate()
  await createReader(database.db, { email: admin.email, confirmed: true })
  await prepare?.(database.db)
  await database.close()
  const store = await spawnStore({
    TRUST_PROXY: 'loopback',
    ...env,
    DATA_DIR: dataDir,
    ADMIN_EMAILS: admin.email,
  })
  await waitUntilReady(store)
  return { store, admin }
}
