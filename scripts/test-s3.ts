/**
 * `npm run test:s3` (issue 32): the integration tests that read or write stored files again, with their
 * storage on a bucket of a real S3-compatible server (s3rver on 127.0.0.1, started here) instead of a folder:
 * on PGlite, and on the PostgreSQL server at TEST_DATABASE_URL when it is set (CI sets it). `npm run
 * test:unit` has run them on the folder already. A file that uses the store's FileStorage must be listed here:
 * tests/storage-suite-guard.ts fails a test file that is missing.
 */
import { spawn } from 'node:child_process'
import { startTestS3 } from '#harness/s3-server.ts'
import { STORAGE_SUITE } from '#harness/storage-suite.ts'

const s3 = await startTestS3('codebook-tests')
let failed = false
try {
  const databases = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])]
  if (databases.length === 1)
    console.log('TEST_DATABASE_URL is not set: the S3 storage suite runs on PGlite only (CI sets it).')
  for (const database of databases) {
    console.log(`--- the storage suite on S3 (${s3.endpoint}), database ${database}`)
    // Asynchronous, so that this process's s3rver goes on answering while vitest runs.
    const status = await new Promise<number | null>((resolve) => {
      const child = spawn('npx', ['vitest', 'run', '--project', 'unit', ...STORAGE_SUITE], {
        stdio: 'inherit',
        env: {
          ...process.env,
          TEST_DB: database,
          TEST_STORAGE: 's3',
          TEST_S3_ENDPOINT: s3.endpoint,
          TEST_S3_BUCKET: s3.bucket,
        },
      })
      child.on('exit', resolve)
    })
    if (status !== 0) failed = true
  }
} finally {
  await s3.stop()
}
process.exit(failed ? 1 : 0)
