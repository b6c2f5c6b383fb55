import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { RouterContextProvider } from 'react-router'
import { appContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createLocalStorage } from '#app/server/storage.server.ts'
import { createStoreServices, type StoreServices } from '#app/services.server.ts'

const servicesByDb = new WeakMap<Db, StoreServices>()

/**
 * The process-wide services for a test database, made once per database like the store does at start. Files
 * go to a fresh temporary folder (the operating system's temp cleaner removes it).
 */
export function servicesFor(db: Db): StoreServices {
  let services = servicesByDb.get(db)
  if (!services) {
    services = createStoreServices({
      db,
      env: parseEnv({}),
      authSecret: 'test-secret-that-is-long-enough-0123456789',
      logger: createLogger('silent'),
      storage: createLocalStorage(fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-files-'))),
    })
    servicesByDb.set(db, services)
  }
  return services
}

/** The arguments React Router passes a loader or action, for calling one directly with a real database. */
export function routeArgs<Params extends Record<string, string>>(options: {
  db: Db
  path: string
  /** Cookie header to send, e.g. from a previous response's Set-Cookie. */
  cookie?: string
  /** The client's address (default 127.0.0.1): rate limits key on it. */
  clientIp?: string
  /** Other services than servicesFor(db), e.g. for an https store. */
  services?: StoreServices
  /** As React Router's client sends it (a fetcher, JavaScript on): the request goes to '<path>.data'. */
  dataRequest?: boolean
  params?: Params
  init?: RequestInit
}) {
  const context = new RouterContextProvider()
  context.set(appContext, {
    ...(options.services ?? servicesFor(options.db)),
    clientIp: options.clientIp ?? '127.0.0.1',
  })
  const url = new URL(options.path, 'http://localhost:3000')
  return {
    request: new Request(options.dataRequest ? new URL(`${url.pathname}.data${url.search}`, url) : url, {
      ...options.init,
      headers: { ...(options.cookie ? { Cookie: options.cookie } : {}), ...options.init?.headers },
    }),
    url,
    pattern: '',
    params: options.params ?? ({} as Params),
    context,
  }
}

/** Runs `fn` and returns what it threw (React Router loaders throw responses); fails if it did not throw. */
export async function thrownBy(fn: () => unknown): Promise<unknown> {
  try {
    await fn()
  } catch (thrown) {
    return thrown
  }
  throw new Error('expected the call to throw')
}
