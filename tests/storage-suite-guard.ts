import path from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import { STORAGE_SUITE, storageCalls } from '#harness/storage-suite.ts'

/**
 * Run before every unit test file: an integration test file that makes a storage call must be in
 * STORAGE_SUITE, so that `npm run test:s3` runs it on a bucket too (issue 32). Fails the file otherwise.
 */
let file = ''
beforeAll(() => {
  file = path
    .relative(process.cwd(), expect.getState().testPath ?? '')
    .split(path.sep)
    .join('/')
})
afterAll(() => {
  if (!file.startsWith('tests/integration/') || STORAGE_SUITE.includes(file) || storageCalls() === 0) return
  throw new Error(
    `${file} made ${storageCalls()} storage calls but is not in harness/storage-suite.ts: add it there, so that ` +
      '`npm run test:s3` runs it on an S3 bucket as well as the folder.',
  )
})
