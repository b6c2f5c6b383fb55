import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { afterEach, describe, expect, test } from 'vitest'
import { spawnStore, tempDataDir, waitUntilReady, type StoreProcess } from '#harness/store-process.ts'

/**
 * Sends a GET on its own connection; resolves once the connection is established and the request written,
 * with a function that gives its final status ('error: …' if it failed).
 */
function sendRequest(url: string): Promise<{ status: Promise<number | string> }> {
  return new Promise((sent, failed) => {
    const status = new Promise<number | string>((resolve) => {
      const request = http.get(url, { agent: false }, (response) => {
        response.resume()
        response.once('end', () => resolve(response.statusCode ?? 0))
      })
      request.once('error', (error) => {
        resolve(`error: ${error.message}`)
        failed(error)
      })
      let connected = false
      let written = false
      const ready = () => connected && written && sent({ status })
      request.once('socket', (socket) =>
        socket.once('connect', () => {
          connected = true
          ready()
        }),
      )
      request.once('finish', () => {
        written = true
        ready()
      })
    })
  })
}

const running: StoreProcess[] = []
async function start(env: Record<string, string> = {}) {
  const store = await spawnStore(env)
  running.push(store)
  return store
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((store) => store.stop('SIGKILL')))
})

describe('the store as a process', () => {
  test('a bad configuration value stops it with a message naming the variable', async () => {
    const store = await start({ PORT: 'not-a-port' })
    expect(await store.exited).toBe(1)
    expect(store.output()).toMatch(/Invalid configuration:\s+PORT: .*"not-a-port"/)
  })

  test('a second store on the same data folder is refused, and the first keeps serving', async () => {
    const first = await start()
    await waitUntilReady(first)
    const second = await start({ DATA_DIR: first.dataDir })
    expect(await second.exited).toBe(1)
    expect(second.output()).toContain(
      `the store's data folder ${first.dataDir} is in use by process ${first.child.pid}`,
    )
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200)
  })

  test('a stale lock from a killed store does not block the next start', async () => {
    const killed = await start()
    await waitUntilReady(killed)
    await killed.stop('SIGKILL')
    expect(fs.readFileSync(path.join(killed.dataDir, 'codebook.lock'), 'utf8').trim()).toBe(
      String(killed.child.pid),
    )
    const next = await start({ DATA_DIR: killed.dataDir })
    await waitUntilReady(next)
    expect((await fetch(`${next.url}/AllBooks`)).status).toBe(200)
  })

  test('SIGTERM finishes in-flight requests, closes the database and exits 0 within 10 s; the data survives', async () => {
    const dataDir = tempDataDir()
    const store = await start({ DATA_DIR: dataDir })
    await waitUntilReady(store)
    // Requests already sent when the signal arrives are answered.
    const inFlight = await Promise.all(Array.from({ length: 10 }, () => sendRequest(`${store.url}/AllBooks`)))
    const stoppedAt = Date.now()
    expect(await store.stop('SIGTERM')).toBe(0)
    expect(Date.now() - stoppedAt).toBeLessThan(10_000)
    expect(await Promise.all(inFlight.map((request) => request.status))).toEqual(Array(10).fill(200))
    expect(fs.existsSync(path.join(dataDir, 'codebook.lock'))).toBe(false)

    // What the store wrote (migrations, the seeded catalogue) is on disk; an edit made while it was down stays.
    // The books table's search triggers need pg_trgm, as in the store itself.
    const db = await PGlite.create(path.join(dataDir, 'db'), { extensions: { pg_trgm } })
    const { rows } = await db.query<{ count: number }>('select count(*)::int as count from books')
    expect(rows[0]?.count).toBe(7)
    await db.query(`update books set title = 'Django Framework, 2nd edition' where slug = 'django-framework'`)
    await db.close()

    const restarted = await start({ DATA_DIR: dataDir })
    await waitUntilReady(restarted)
    const page = await (await fetch(`${restarted.url}/books/django-framework`)).text()
    expect(page).toContain('Django Framework, 2nd edition')
    expect(await restarted.stop('SIGINT')).toBe(0)
  })
})
