import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

let root: string | undefined

/**
 * The folder holding package.json. Source files (dev, tests) and the bundled server (build/server) sit at
 * different depths, so files shipped beside the code (migrations, data) are found from here.
 */
export function findProjectRoot(): string {
  if (root) return root
  let dir = path.dirname(fileURLToPath(import.meta.url))
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir)
    if (parent === dir) throw new Error(`package.json not found above ${fileURLToPath(import.meta.url)}`)
    dir = parent
  }
  root = dir
  return root
}
