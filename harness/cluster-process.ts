import { spawn, type ChildProcess } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { startPostgres, type PostgresServer } from './postgres-server.ts'
import { freePort, spawnStore, waitUntilReady, type StoreProcess } from './store-process.ts'

// Several store instances on one PostgreSQL database behind nginx, as real processes on 127.0.0.1: for
// `npm run cluster`, the cluster drill and `npm run bench -- --instances` (docs/decisions/022-scale-out.md).

export const NGINX = '/usr/sbin/nginx'

export class MissingNginxError extends Error {
  override name = 'MissingNginxError'
  constructor() {
    super(`nginx is not installed (${NGINX}): run \`apt-get install -y nginx\` (Debian), then try again.`)
  }
}

export type Cluster = {
  /** nginx's address: what a visitor uses. */
  url: string
  databaseUrl: string
  instances: StoreProcess[]
  nginx: ChildProcess
  /** The folder every instance's DATA_DIR/files points to (book files, stamped copies, covers). */
  filesDir: string
  /** The nginx prefix (conf/nginx.conf, logs/error.log). */
  prefix: string
  /** nginx's error log so far (upstream failures, retries). */
  nginxLog(): string
  /** Stops nginx, the instances (gracefully) and the PostgreSQL server if the cluster started it. */
  stop(): Promise<void>
}

export type ClusterOptions = {
  instances: number
  /** nginx's port; a free one when unset. */
  port?: number
  /** An existing database (migrated here); unset: a throwaway PostgreSQL server is started. */
  databaseUrl?: string
  /** Extra environment for every instance. */
  env?: Record<string, string>
  /** Runs after the migrations, before any instance starts (e.g. to seed data, or queue mail). */
  prepare?: (databaseUrl: string) => Promise<void>
  /** Benchmarks: the instances' logs are thrown away instead of kept in memory. */
  discardOutput?: boolean
  /** The shared files folder, kept after stop (created if missing); unset: a temporary one, removed. */
  filesDir?: string
  /**
   * nginx's `keepalive_requests` towards clients (nginx's default, 1000, when unset). Load generators set it
   * high: autocannon ignores the `Connection: close` nginx sends on a connection's last request and writes the
   * next request as nginx closes, which comes back as ECONNRESET (a client error that browsers do not make).
   */
  clientKeepaliveRequests?: number
}

/**
 * Starts PostgreSQL (unless given one), migrates it once, starts the instances (in parallel, each on its own
 * port and DATA_DIR, all DATA_DIR/files linked to one shared folder) and nginx in front of them. On a failure
 * everything started so far is stopped before the error is thrown.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  if (!fs.existsSync(NGINX)) throw new MissingNginxError()
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-cluster-'))
  // nginx's workers run as `nobody` when we are root: they must be able to reach their temp folders.
  fs.chmodSync(root, 0o755)
  let postgres: PostgresServer | undefined
  const instances: StoreProcess[] = []
  let balancer: Nginx | undefined
  const cleanUp = async () => {
    await balancer?.stop()
    await Promise.all(instances.map((instance) => instance.stop()))
    postgres?.destroy()
    fs.rmSync(root, { recursive: true, force: true })
  }
  try {
    let databaseUrl = options.databaseUrl
    if (!databaseUrl) {
      postgres = await startPostgres()
      databaseUrl = postgres.createDatabase('codebook')
    }
    await migrateOnce(databaseUrl)
    await options.prepare?.(databaseUrl)

    const port = options.port ?? (await freePort())
    const url = `http://127.0.0.1:${port}`
    const filesDir = options.filesDir ? path.resolve(options.filesDir) : path.join(root, 'files')
    fs.mkdirSync(filesDir, { recursive: true })
    const ports = await distinctFreePorts(options.instances, port)
    const secret = options.env?.BETTER_AUTH_SECRET ?? crypto.randomBytes(32).toString('base64url')
    const started = await Promise.allSettled(
      ports.map(async (instancePort, index) => {
        const dataDir = path.join(root, `instance-${index + 1}`)
        fs.mkdirSync(dataDir)
        fs.symlinkSync(filesDir, path.join(dataDir, 'files'))
        const instance = await spawnStore(
          {
            HOST: '127.0.0.1',
            BETTER_AUTH_URL: url,
            // One proxy in front: the client's address is the last X-Forwarded-For entry, the one nginx
            // wrote. (Not 'loopback': that would also believe an address the client wrote itself.)
            TRUST_PROXY: '1',
            ...options.env,
            BETTER_AUTH_SECRET: secret,
            DATABASE_URL: databaseUrl,
            PORT: String(instancePort),
            DATA_DIR: dataDir,
          },
          { discardOutput: options.discardOutput },
        )
        instances.push(instance)
        await waitUntilReady(instance, 120_000)
        return instance
      }),
    )
    const failure = started.find((result) => result.status === 'rejected')
    if (failure) throw failure.reason
    instances.sort((a, b) => ports.indexOf(portOf(a.url)) - ports.indexOf(portOf(b.url)))

    balancer = await startNginx({
      prefix: path.join(root, 'nginx'),
      port,
      upstreams: ports,
      clientKeepaliveRequests: options.clientKeepaliveRequests,
    })
    return {
      url,
      databaseUrl,
      instances,
      nginx: balancer.process,
      filesDir,
      prefix: balancer.prefix,
      nginxLog: balancer.errorLog,
      stop: cleanUp,
    }
  } catch (error) {
    await cleanUp()
    throw error
  }
}

export type Nginx = {
  url: string
  process: ChildProcess
  prefix: string
  /** nginx's error log so far. */
  errorLog(): string
  /** Graceful stop (SIGQUIT), SIGKILL after 5 s. */
  stop(): Promise<void>
}

/** nginx in front of `upstreams` (ports on 127.0.0.1), its configuration and files under `prefix`; ready when it returns. */
export async function startNginx(options: {
  prefix: string
  port: number
  upstreams: number[]
  /** A path every upstream answers 200 on (the store's /readyz). */
  readyPath?: string
  /** See ClusterOptions.clientKeepaliveRequests. */
  clientKeepaliveRequests?: number
}): Promise<Nginx> {
  if (!fs.existsSync(NGINX)) throw new MissingNginxError()
  const { prefix, port } = options
  for (const dir of ['conf', 'logs', 'temp']) fs.mkdirSync(path.join(prefix, dir), { recursive: true })
  const conf = path.join(prefix, 'conf', 'nginx.conf')
  fs.writeFileSync(
    conf,
    nginxConfig({
      port,
      upstreams: options.upstreams,
      runAsRoot: process.getuid?.() === 0,
      clientKeepaliveRequests: options.clientKeepaliveRequests,
    }),
  )
  const child = spawn(NGINX, ['-p', prefix, '-c', conf, '-e', path.join(prefix, 'logs', 'error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let output = ''
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const errorLog = () => {
    try {
      return fs.readFileSync(path.join(prefix, 'logs', 'error.log'), 'utf8')
    } catch {
      return ''
    }
  }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGQUIT')
    await Promise.race([exited, delay(5_000).then(() => child.kill('SIGKILL'))])
  }
  const url = `http://127.0.0.1:${port}`
  try {
    await waitForNginx(`${url}${options.readyPath ?? '/readyz'}`, child, () => output + errorLog())
  } catch (error) {
    await stop()
    throw error
  }
  return { url, process: child, prefix, errorLog, stop }
}

/** Applies the migrations once, before any instance starts (each instance would also wait on the advisory lock). */
async function migrateOnce(databaseUrl: string): Promise<void> {
  const { openDatabase } = await import('#app/server/db/database.server.ts')
  const database = await openDatabase({ kind: 'postgres', url: databaseUrl, poolSize: 2 })
  try {
    await database.migrate()
  } finally {
    await database.close()
  }
}

/**
 * nginx in front of the instances (docs/deploying.md explains each line):
 * - passive health checks: an instance that refuses or drops a connection twice is left out for 5 s;
 * - a request is tried on the next instance only when it is idempotent (nginx's default since 1.9.13) or was
 *   never sent (the connection was refused), and only on a connection error, a timeout, a 502 or a 504: not on
 *   the store's own 503 (its database is down: another instance would say the same);
 * - X-Forwarded-For/Proto/Host as the store's TRUST_PROXY=1 expects; keep-alive connections to the instances,
 *   closed before Node's own 5 s keep-alive timeout can close one under a request;
 * - bodies: 1 MB (the store's largest ordinary limit, Stripe's webhook), 11 MB for a cover upload (10 MB and
 *   its multipart framing), 8 MB for a manuscript (7 MB): the store answers anything between with its own
 *   message, nginx only stops what the store would never read.
 */
export function nginxConfig(options: {
  port: number
  upstreams: number[]
  runAsRoot: boolean
  clientKeepaliveRequests?: number
}): string {
  const servers = options.upstreams
    .map((port) => `    server 127.0.0.1:${port} max_fails=2 fail_timeout=5s;`)
    .join('\n')
  const proxy = `proxy_pass http://codebook;`
  return `# Written by harness/cluster-process.ts (npm run cluster): docs/deploying.md
${options.runAsRoot ? 'user nobody nogroup;\n' : ''}daemon off;
worker_processes 1;
pid logs/nginx.pid;
error_log logs/error.log warn;

events {
  worker_connections 4096;
}

http {
  access_log off;
  server_tokens off;
  client_body_temp_path temp/client_body;
  proxy_temp_path temp/proxy;
  fastcgi_temp_path temp/fastcgi;
  uwsgi_temp_path temp/uwsgi;
  scgi_temp_path temp/scgi;

  upstream codebook {
${servers}
    keepalive 64;
    keepalive_timeout 4s;
  }

  server {
    listen 127.0.0.1:${options.port};
${options.clientKeepaliveRequests ? `    keepalive_requests ${options.clientKeepaliveRequests};\n` : ''}    client_max_body_size 1m;

    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $http_host;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_set_header X-Forwarded-Proto $scheme;
    proxy_set_header X-Forwarded-Host $http_host;
    proxy_connect_timeout 2s;
    proxy_read_timeout 60s;
    proxy_next_upstream error timeout http_502 http_504;
    proxy_next_upstream_tries 2;
    proxy_next_upstream_timeout 10s;

    location / {
      ${proxy}
    }
    location ~ ^/admin/books/[^/]+/cover(\\.data)?$ {
      client_max_body_size 11m;
      ${proxy}
    }
    location ~ ^/admin/books/[^/]+/manuscript(\\.data)?$ {
      client_max_body_size 8m;
      ${proxy}
    }
  }
}
`
}

async function waitForNginx(readyUrl: string, nginx: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (nginx.exitCode !== null || nginx.signalCode !== null)
      throw new Error(`nginx exited (${nginx.exitCode ?? nginx.signalCode}):\n${output()}`)
    try {
      if ((await fetch(readyUrl)).status === 200) return
    } catch {
      // Not listening yet.
    }
    await delay(100)
  }
  throw new Error(`nginx did not answer within 10 s:\n${output()}`)
}

async function distinctFreePorts(count: number, taken: number): Promise<number[]> {
  const ports = new Set<number>()
  while (ports.size < count) {
    const port = await freePort()
    if (port !== taken) ports.add(port)
  }
  return [...ports]
}

function portOf(url: string): number {
  return Number(new URL(url).port)
}

function delay(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * CPU time (user + system, ms) used so far by a process and, with `withChildren`, its live children (nginx's
 * workers, PostgreSQL's backends): Linux's /proc, 100 ticks a second. Undefined when it cannot be read.
 */
export function processCpuMs(pid: number | undefined, withChildren = false): number | undefined {
  if (pid === undefined) return undefined
  const fields = readStat(pid)
  if (!fields) return undefined
  const own = (Number(fields[11]) + Number(fields[12])) * 10
  if (!withChildren) return own
  // Children that have exited and been waited for (cutime, cstime), then the live ones.
  let total = own + (Number(fields[13]) + Number(fields[14])) * 10
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = readStat(Number(entry))
    if (stat && Number(stat[1]) === pid) total += (Number(stat[11]) + Number(stat[12])) * 10
  }
  return total
}

/** The fields of /proc/<pid>/stat after the command name (state is [0], ppid [1], utime [11], stime [12]). */
function readStat(pid: number): string[] | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  } catch {
    return undefined
  }
}

/** The PostgreSQL server's postmaster pid, from its data folder's postmaster.pid (readable as root). */
export function postmasterPid(postgresPort: number): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')
      if (cmdline[0]?.endsWith('/postgres') && cmdline.includes(String(postgresPort))) return Number(entry)
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined
}
