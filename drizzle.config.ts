import { defineConfig } from 'drizzle-kit'

// Only `generate` is used: migrations are applied by the store itself (app/server/db/database.server.ts, `migrate`).
export default defineConfig({
  dialect: 'postgresql',
  schema: './app/server/db/schema/index.server.ts',
  out: './drizzle',
})
