import { createContext, type RouterContextProvider } from 'react-router'
import type { AnalyticsSink } from './analytics-sink.server.ts'
import type { Auth } from './auth.server.ts'
import type { Db } from './db/database.server.ts'
import type { Env } from './env.server.ts'
import type { Logger } from './logger.server.ts'
import type { RenderMemo } from './render-memo.server.ts'
import type { SessionCache } from './session-cache.server.ts'
import type { FileStorage } from './storage.server.ts'
import type { WorkQueue } from './work-queue.server.ts'

/**
 * What every loader and action may use, set once per request by the HTTP host (server/app.ts). An interface, so
 * that app/services.server.ts can add the store's own services (the payment provider) without this layer
 * importing a feature.
 */
export interface AppContext {
  db: Db
  env: Env
  /** The client's address, as Express derives it under TRUST_PROXY. Rate limits key on it. */
  clientIp: string
  /** Signs cookies and sessions: BETTER_AUTH_SECRET, or the one generated into DATA_DIR. */
  authSecret: string
  /** Better Auth, on `db` (app/services.server.ts). */
  auth: Auth
  /**
   * Signed-in visitors' sessions, kept for SESSION_CACHE_SECONDS (decision 021). A write to a user or a session
   * outside Better Auth must call `forgetSessionsOf(db, userId)` once it has committed.
   */
  sessions: SessionCache<unknown>
  /** For failures handled by showing a message: the operator still hears of them. */
  logger: Logger
  /** Asks the mail outbox to send what is due now (after a purchase commits) instead of at its next tick. */
  kickOutbox: () => void
  /** The books' files and their stamped copies (DATA_DIR/files by default). */
  storage: FileStorage
  /** Store events for the first-party analytics, written in batches off the request's path. */
  analytics: AnalyticsSink
  /** Documents rendered in the last minute, by URL and data (app/entry.server.tsx, decision 021). */
  renderMemo: RenderMemo
  /** Image work (resizing an uploaded cover): one job at a time in this process, a few waiting (decision 012). */
  imageWork: WorkQueue
}

export const appContext = createContext<AppContext>()

/** This response's Content-Security-Policy nonce; entry.server.tsx puts it on every script it renders. */
export const cspNonceContext = createContext<string>('')

/**
 * What the document's render (app/entry.server.tsx) reports to the host when the host may keep the page in its
 * shared cache (server/page-cache.ts): the CSP sources of the inline scripts it wrote with this response's nonce.
 * A cached page carries no nonce and allows exactly these scripts; a `<script>` that reached the HTML any other
 * way (injected through data) has no nonce and is never among them (issue 28).
 */
export type RenderedScripts = { hashes?: string[] }
export const renderedScriptsContext = createContext<RenderedScripts | null>(null)

export function getAppContext(context: Readonly<RouterContextProvider>): AppContext {
  return context.get(appContext)
}
