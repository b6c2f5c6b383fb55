/**
 * The integration test files that read or write the store's files through FileStorage (directly, or through
 * the routes and features that keep covers, editions, stamped copies, photos and logos): `npm run test:s3`
 * runs them on a bucket as well as the folder (issue 32). The list is checked: a test file not in it that makes
 * a storage call fails (`tests/storage-suite-guard.ts`).
 */
export const STORAGE_SUITE = [
  'tests/integration/account-deletion.test.ts',
  'tests/integration/admin-catalogue.test.ts',
  'tests/integration/admin-editions.test.ts',
  'tests/integration/authors.test.ts',
  'tests/integration/backup.test.ts',
  'tests/integration/book-page.test.ts',
  'tests/integration/cover-uploads.test.ts',
  'tests/integration/download-ranges.test.ts',
  'tests/integration/editions.test.ts',
  'tests/integration/kindle.test.ts',
  'tests/integration/library.test.ts',
  'tests/integration/opds-library.test.ts',
  'tests/integration/reader.test.ts',
  'tests/integration/store-identity.test.ts',
]

/** Storage calls made by the running test file so far (each test file has its own module registry). */
let calls = 0
export const storageCalls = () => calls
export function countStorageCall() {
  calls += 1
}
