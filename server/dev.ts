/** `npm run dev`: the same process as production, with Vite transforming modules and reloading on change. */
import { createServer } from 'vite'
import type * as StoreProcess from './app.ts'

process.env.NODE_ENV ??= 'development'
const vite = await createServer({ server: { middlewareMode: true }, appType: 'custom' })
const { start } = (await vite.ssrLoadModule('/server/app.ts')) as typeof StoreProcess
await start({ vite })
