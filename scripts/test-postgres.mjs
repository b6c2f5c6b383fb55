// `npm run test:postgres`: the database-backed integration tests again, on the PostgreSQL server at
// TEST_DATABASE_URL (each test file gets a database of its own). Skipped, loudly, when it is not set.
import { spawnSync } from 'node:child_process'

if (!process.env.TEST_DATABASE_URL) {
  console.log('TEST_DATABASE_URL is not set: skipping the integration tests on PostgreSQL (CI sets it).')
  process.exit(0)
}
const result = spawnSync('npx', ['vitest', 'run', '--project', 'unit', 'tests/integration'], {
  stdio: 'inherit',
  env: { ...process.env, TEST_DB: 'postgres' },
})
process.exit(result.status ?? 1)
