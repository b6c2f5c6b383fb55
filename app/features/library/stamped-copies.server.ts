import { createHash } from 'node:crypto'
import { stampFormatVersion } from './editions/stamp.server.ts'
import type { BookFile } from './library.server.ts'

/** What a buyer's copy is stamped with: their email and the number of the order that made the book theirs. */
export type Stamp = { email: string; orderNumber: number }

/**
 * `stamped/<who>/<slug>-<edition>-s<stamp format>.<ext>`: `who` hashes the buyer with the stamp's contents (a
 * changed email makes a new copy) and keeps account ids, which may hold upper case, out of the key; the
 * edition is the book file's sha256 and the stamp format `stampFormatVersion`, so a new edition or a new
 * stamp makes a new copy.
 */
export function stampedCopyKey(
  userId: string,
  stamp: Stamp,
  file: { slug: string; format: BookFile['format']; sha256: string },
  formatVersion = stampFormatVersion,
): string {
  const extension = file.format === 'epub' ? 'epub' : 'pdf'
  return `stamped/${stampedCopyOwner(userId, stamp)}/${file.slug}-${file.sha256.slice(0, 16)}-s${formatVersion}.${extension}`
}

/** The `who` folder of a buyer's stamped copies: their account and stamp, hashed. */
export function stampedCopyOwner(userId: string, stamp: Stamp): string {
  // The first 16 bytes as 32 hex digits: a string of its own, not a slice holding the whole digest's (the sweep
  // keeps one per owned book).
  return createHash('sha256')
    .update(JSON.stringify([userId, stamp.email, stamp.orderNumber]))
    .digest()
    .toString('hex', 0, 16)
}

const stampedKeyPattern = /^stamped\/([0-9a-f]{32})\/([a-z0-9][a-z0-9-]*)-([0-9a-f]{16})-s(\d+)\.(pdf|epub)$/

/** The parts of a key `stampedCopyKey` made, or null for any other key. */
export function parseStampedCopyKey(key: string): {
  who: string
  slug: string
  sha16: string
  formatVersion: number
  format: 'pdf' | 'epub'
} | null {
  const match = stampedKeyPattern.exec(key)
  if (!match) return null
  const [, who, slug, sha16, version, format] = match
  return {
    who: who!,
    slug: slug!,
    sha16: sha16!,
    formatVersion: Number(version),
    format: format as 'pdf' | 'epub',
  }
}
