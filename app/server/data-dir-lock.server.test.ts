import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { DataDirInUseError, lockDataDir } from './data-dir-lock.server.ts'

const dirs: string[] = []
function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-lock-'))
  dirs.push(dir)
  return path.join(dir, 'nested', 'data')
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

test('a folder held by a live process is refused with its pid', () => {
  const dir = tempDir()
  fs.mkdirSync(dir, { recursive: true })
  // The parent of this test process is alive and is not us.
  fs.writeFileSync(path.join(dir, 'codebook.lock'), `${process.ppid}\n`)
  expect(() => lockDataDir(dir)).toThrow(DataDirInUseError)
  expect(() => lockDataDir(dir)).toThrow(`is in use by process ${process.ppid}`)
})

test('a stale lock left by a dead process is taken over, and released on release()', () => {
  const dir = tempDir()
  fs.mkdirSync(dir, { recursive: true })
  const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid
  fs.writeFileSync(path.join(dir, 'codebook.lock'), `${dead}\n`)
  const lock = lockDataDir(dir)
  expect(fs.readFileSync(path.join(dir, 'codebook.lock'), 'utf8').trim()).toBe(String(process.pid))
  lock.release()
  expect(fs.existsSync(path.join(dir, 'codebook.lock'))).toBe(false)
})

test('a lock with garbage in it (a crash mid-write) does not block the next start', () => {
  const dir = tempDir()
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'codebook.lock'), '')
  lockDataDir(dir).release()
})
