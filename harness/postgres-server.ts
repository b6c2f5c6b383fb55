import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { freePort } from './store-process.ts'

// A throwaway PostgreSQL 15 server on 127.0.0.1, for drills and benchmarks that start real processes (the test
// suites get theirs from scripts/postgres-cluster.sh). initdb refuses to run as root, so as root the cluster
// belongs to the `postgres` user, as in CI.

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin'

export type PostgresServer = {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string
  port: number
  /** A new database on this server (empty, or a copy of `template`, which nobody may be connected to), and its URL. */
  createDatabase(name: string, options?: { template?: string }): string
  /** Stops the server (fast shutdown: open connections are cut, as in a real restart). */
  stop(): void
  start(): void
  /** Stops and starts it again. */
  restart(): void
  /** Stops the server and removes its files. */
  destroy(): void
}

function asOwner(command: string, args: string[]): void {
  const isRoot = process.getuid?.() === 0
  const result = isRoot
    ? spawnSync('su', ['postgres', '-s', '/bin/bash', '-c', [command, ...args].map(shellQuote).join(' ')], {
        encoding: 'utf8',
      })
    : spawnSync(command, args, { encoding: 'utf8' })
  if (result.status !== 0)
    throw new Error(`${path.basename(command)} failed (${result.status}):\n${result.stdout}${result.stderr}`)
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`
}

export async function startPostgres(
  options: { maxConnections?: number; port?: number } = {},
): Promise<PostgresServer> {
  const port = options.port ?? (await freePort())
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-pg-'))
  if (process.getuid?.() === 0) {
    try {
      execFileSync('id', ['postgres'], { stdio: 'ignore' })
    } catch {
      execFileSync('useradd', ['--system', '--no-create-home', 'postgres'])
    }
    execFileSync('chown', ['postgres', dir])
  }
  const dataDir = path.join(dir, 'data')
  asOwner(`${PG_BIN}/initdb`, [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C.UTF-8',
    '--no-sync',
  ])
  const serverOptions = `-h 127.0.0.1 -p ${port} -k ${dir} -c max_connections=${options.maxConnections ?? 200}`
  const start = () =>
    asOwner(`${PG_BIN}/pg_ctl`, [
      '-D',
      dataDir,
      '-l',
      path.join(dir, 'server.log'),
      '-w',
      '-o',
      serverOptions,
      'start',
    ])
  const stop = () => asOwner(`${PG_BIN}/pg_ctl`, ['-D', dataDir, '-m', 'fast', '-w', 'stop'])
  start()
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  return {
    url,
    port,
    createDatabase(name, { template } = {}) {
      for (const plain of [name, template ?? name])
        if (!/^[a-z_][a-z0-9_]*$/.test(plain)) throw new Error(`not a plain database name: ${plain}`)
      const copy = template ? ['-T', template] : []
      asOwner(`${PG_BIN}/createdb`, ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', ...copy, name])
      return `postgres://postgres@127.0.0.1:${port}/${name}`
    },
    stop,
    start,
    restart() {
      stop()
      start()
    },
    destroy() {
      try {
        asOwner(`${PG_BIN}/pg_ctl`, ['-D', dataDir, '-m', 'immediate', 'stop'])
      } catch {
        // Already stopped.
      }
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}
