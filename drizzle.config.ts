import { defineConfig } from 'drizzle-kit'

// Only `generate` is used: migrations are applied by the store itself (app/server/db/migrate.server.ts).
export default defineConfig({
  dialect: 'postgresql',
  schema: './app/server/db/schema.server.ts',
  out: './drizzle',
})
