/**
 * `npm run cluster -- --instances N [--port P]`: N store instances (the production build) on one PostgreSQL
 * database behind nginx, on 127.0.0.1, until Ctrl-C or SIGTERM. DATABASE_URL: that database (migrated here
 * once); unset: a throwaway PostgreSQL server, removed on exit. Every instance's DATA_DIR/files is one shared
 * folder (book files, stamped copies, covers): `--files DIR` keeps it (use it with DATABASE_URL, whose rows name
 * those files), else a temporary one. Needs Debian's nginx: `apt-get install -y nginx`.
 * Design: docs/decisions/022-scale-out.md; the setup explained, line by line: docs/deploying.md.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { parseArgs } from 'node:util'
import { MissingNginxError, NGINX, startCluster, type Cluster } from '#harness/cluster-process.ts'

const usage =
  'usage: npm run cluster -- --instances N [--port P] [--files DIR]   (N from 1 to 16; P default 8080; DIR: the shared files folder, kept; default a temporary one)'

function parseOptions() {
  try {
    const { values } = parseArgs({
      options: {
        instances: { type: 'string', default: '2' },
        port: { type: 'string', default: '8080' },
        files: { type: 'string' },
      },
      strict: true,
    })
    const instances = Number(values.instances)
    const port = Number(values.port)
    if (!Number.isInteger(instances) || instances < 1 || instances > 16)
      throw new Error('--instances: 1 to 16')
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error('--port: a port number')
    return { instances, port, files: values.files }
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`)
    process.exit(2)
  }
}

const { instances, port, files } = parseOptions()
if (!fs.existsSync(NGINX)) {
  console.error(new MissingNginxError().message)
  process.exit(1)
}
if (!fs.existsSync('build/server/index.js')) {
  const build = spawnSync('npx', ['react-router', 'build'], { stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

let starting: Promise<Cluster> | undefined
let stopping = false
const stop = async (code: number) => {
  if (stopping) return
  stopping = true
  console.log('\nStopping nginx and the instances…')
  // Stopped while starting: once started (a failed start has cleaned up after itself).
  await starting?.then((cluster) => cluster.stop()).catch(() => {})
  process.exit(code)
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop(0))

console.log(
  `Starting ${instances} instance${instances === 1 ? '' : 's'} on ${
    process.env.DATABASE_URL ? 'DATABASE_URL' : 'a throwaway PostgreSQL server'
  } behind nginx…`,
)
let cluster: Cluster
try {
  starting = startCluster({
    instances,
    port,
    databaseUrl: process.env.DATABASE_URL || undefined,
    filesDir: files,
    // The instances' own output goes on ours (warnings and errors: LOG_LEVEL warn unless set).
    env: Object.fromEntries(
      ['BETTER_AUTH_SECRET', 'BETTER_AUTH_URL', 'LOG_LEVEL', 'ADMIN_EMAILS', 'SMTP_URL', 'MAIL_FROM']
        .filter((name) => process.env[name])
        .map((name) => [name, process.env[name]!]),
    ),
  })
  cluster = await starting
} catch (error) {
  if (stopping) await new Promise(() => {})
  console.error(`The cluster could not start: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}
if (stopping) await new Promise(() => {})
for (const [index, instance] of cluster.instances.entries()) {
  instance.child.stdout?.on('data', (chunk: Buffer) => process.stdout.write(`[${index + 1}] ${chunk}`))
  instance.child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[${index + 1}] ${chunk}`))
  void instance.exited.then((code) => {
    if (!stopping)
      console.error(
        `instance ${index + 1} (${instance.url}) exited (${code}); nginx sends its requests to the others`,
      )
  })
}
void new Promise((resolve) => cluster!.nginx.once('exit', resolve)).then(() => {
  if (stopping) return
  console.error(`nginx exited:\n${cluster!.nginxLog()}`)
  void stop(1)
})
console.log(`
CodeBook is served by nginx at ${cluster.url}
  instances: ${cluster.instances.map((instance) => instance.url).join(', ')}
  shared files folder: ${cluster.filesDir}
  nginx config: ${cluster.prefix}/conf/nginx.conf
Ctrl-C stops everything.`)
