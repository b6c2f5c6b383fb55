import { readCoverSource } from '#app/features/catalog/covers.server.ts'
import type { CoverImage } from '#app/server/db/schema/index.server.ts'
import type { FileStorage } from '#app/server/storage.server.ts'
import type { EpubCover } from './render-epub.server.ts'

/**
 * The cover an edition's EPUB carries: the one the store shows (an upload's largest JPEG, else the seed's SVG),
 * or none when its file is missing (the EPUB is still made, without a cover page).
 */
export async function readEpubCover(
  storage: FileStorage,
  book: { cover: CoverImage | null; coverPath: string },
): Promise<EpubCover | undefined> {
  const bytes = await readCoverSource(storage, book)
  if (!bytes) return undefined
  return { bytes, mediaType: book.cover ? 'image/jpeg' : 'image/svg+xml' }
}
