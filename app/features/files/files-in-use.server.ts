import { listAuthorPhotoFilesInUse } from '#app/features/authors/photos.server.ts'
import { listCoverFilesInUse } from '#app/features/catalog/covers.server.ts'
import { listBookFilesInUse } from '#app/features/library/files-in-use.server.ts'
import { listLogoFilesInUse } from '#app/features/settings/store-settings.server.ts'
import type { Db } from '#app/server/db/database.server.ts'

/**
 * The storage folders whose files the database names, each file by its exact key: the books' files (`books/` the
 * seed's, `editions/` the back office's), uploaded covers, author photos and the store's logo. A file there that
 * no row names is an old one (an earlier edition, a replaced upload, a deleted book's). Stamped copies
 * (`stamped/`) are a cache no row names; any other folder is not the sweep's to judge.
 */
export const namedFolders = ['books', 'editions', 'covers', 'authors', 'logos'] as const

/**
 * Every file a row names, by storage key: what a backup must hold (taken in the dump's snapshot, it is what the
 * dump names) and what the sweep of old files never deletes.
 */
export async function listFilesInUse(db: Db): Promise<Set<string>> {
  // One after another: on a transaction (the sweep's, the backup's snapshot) the queries share one connection.
  const keys = new Set<string>()
  for (const list of [listBookFilesInUse, listCoverFilesInUse, listAuthorPhotoFilesInUse, listLogoFilesInUse])
    for (const key of await list(db)) keys.add(key)
  return keys
}
