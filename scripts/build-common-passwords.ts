/**
 * Regenerates app/features/identity/data/common-passwords.json, the list registration refuses: the first
 * 10,000 distinct (lower-cased) entries of the frequency-ranked password list in @zxcvbn-ts/language-common
 * (MIT; src/passwords.json, derived from the Xato 10-million-password corpus), most common first.
 *
 *   tsx scripts/build-common-passwords.ts [version]
 *
 * The package is fetched with `npm pack` into a temporary folder: the store ships the data, not the package.
 * Its licence is copied beside the data, as MIT asks of copies.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { findProjectRoot } from '#app/server/project-root.server.ts'

const PACKAGE = '@zxcvbn-ts/language-common'
const version = process.argv[2] ?? '4.1.3'
const COUNT = 10_000
const dataDir = path.join(findProjectRoot(), 'app/features/identity/data')

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'common-passwords-'))
try {
  const tarball = execFileSync('npm', ['pack', `${PACKAGE}@${version}`, '--silent'], {
    cwd: work,
    encoding: 'utf8',
  }).trim()
  execFileSync('tar', ['-xzf', tarball], { cwd: work })
  const ranked: unknown = JSON.parse(fs.readFileSync(path.join(work, 'package/src/passwords.json'), 'utf8'))
  if (!Array.isArray(ranked)) throw new Error(`${PACKAGE}@${version}: src/passwords.json is not a list`)

  // Compared without regard to case at runtime, so 'Password' and 'password' are one entry here.
  const distinct = new Set<string>()
  for (const entry of ranked) {
    distinct.add(String(entry).toLowerCase())
    if (distinct.size === COUNT) break
  }
  if (distinct.size < COUNT) throw new Error(`${PACKAGE}@${version} has only ${distinct.size} passwords`)

  fs.writeFileSync(path.join(dataDir, 'common-passwords.json'), `${JSON.stringify([...distinct])}\n`)
  fs.copyFileSync(path.join(work, 'package/LICENSE.txt'), path.join(dataDir, 'common-passwords.LICENSE.txt'))
  console.log(`Wrote the ${COUNT} most common passwords from ${PACKAGE}@${version} to ${dataDir}`)
} finally {
  fs.rmSync(work, { recursive: true, force: true })
}
