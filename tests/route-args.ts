import { RouterContextProvider } from 'react-router'
import { appContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import type { StoreServices } from '#app/services.server.ts'
import { servicesFor } from '#harness/services.ts'

export { servicesFor }

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

/** What a loader or action answered, read the same way whether it returned data, `data(…, init)` or a Response. */
export async function answerOf(
  pending: Promise<unknown>,
): Promise<{ status: number; body: Record<string, unknown> | null; headers: Headers }> {
  const result = await pending.catch((thrown: unknown) => thrown)
  if (result instanceof Response) return { status: result.status, body: null, headers: result.headers }
  if (result && typeof result === 'object' && 'type' in result && result.type === 'DataWithResponseInit') {
    const { data, init } = result as unknown as { data: Record<string, unknown>; init?: ResponseInit }
    return { status: init?.status ?? 200, body: data, headers: new Headers(init?.headers) }
  }
  if (result instanceof Error) throw result
  return { status: 200, body: result as Record<string, unknown>, headers: new Headers() }
}
