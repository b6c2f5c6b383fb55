import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import type { TestProject } from 'vitest/node'
import { createServerDatabase, prepare } from '#tests/db.ts'
import { openDatabase } from '#app/server/db/database.server.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The database every test file starts from, migrated and seeded once for the run (tests/db.ts): a PGlite
     * data folder dump (a file), or the name of a PostgreSQL template database.
     */
    templateDatabase: { kind: 'pglite'; dumpFile: string } | { kind: 'postgres'; name: string } | undefined
  }
}

let dispose: (() => Promise<void>) | undefined

/**
 * The unit project's global setup: migrating and seeding a database costs each test file about 2 s on PGlite
 * (its start-up included); copying a prepared one costs about 0.5 s.
 */
export async function setup(project: TestProject) {
  if (process.env.TEST_DB === 'postgres') {
    const serverUrl = process.env.TEST_DATABASE_URL
    if (!serverUrl) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL')
    const server = await createServerDatabase(serverUrl, 'codebook_template')
    dispose = server.drop
    const handle = await openDatabase({ kind: 'postgres', url: server.url, poolSize: 2 })
    try {
      await prepare(handle)
    } finally {
      await handle.close()
    }
    project.provide('templateDatabase', { kind: 'postgres', name: server.name })
    return
  }
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-template-'))
  dispose = async () => fs.rmSync(folder, { recursive: true, force: true })
  const dataDir = path.join(folder, 'db')
  const handle = await openDatabase({ kind: 'pglite', dataDir })
  try {
    await prepare(handle)
  } finally {
    await handle.close()
  }
  const client = await PGlite.create(dataDir, { extensions: { pg_trgm } })
  try {
    const dumpFile = path.join(folder, 'template.tar')
    fs.writeFileSync(dumpFile, Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer()))
    project.provide('templateDatabase', { kind: 'pglite', dumpFile })
  } finally {
    await client.close()
  }
}

export async function teardown() {
  await dispose?.()
}
