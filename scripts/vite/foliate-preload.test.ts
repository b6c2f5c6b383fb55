import fs from 'node:fs'
import { createRequire } from 'node:module'
import vm from 'node:vm'
import { describe, expect, test } from 'vitest'
import { guardFoliatePaginator } from './foliate-guards'
import { foliatePreload, preloadFoliateSections } from './foliate-preload'

const installed = createRequire(import.meta.url).resolve('foliate-js/paginator.js')

describe('foliate-js paginator: the next section laid out ahead', () => {
  test('every change applies to the installed paginator, once, after the guards, and the result parses', () => {
    const source = guardFoliatePaginator(fs.readFileSync(installed, 'utf8'))
    const changed = preloadFoliateSections(source)
    for (const [before, after] of foliatePreload) {
      expect(changed.split(after)).toHaveLength(2)
      // Where the new text keeps the old one (code added after it), the old one is still there once.
      expect(changed.split(before).length).toBeLessThanOrEqual(2)
    }
    // Compiled by V8 (as a script: the module's one `export` aside), which also checks every private name used
    // is declared.
    expect(() => new vm.Script(changed.replace(/^export class /m, 'class '))).not.toThrow()
    // The guards still apply to what the browser gets.
    expect(changed).toContain('if (!layout || !this.document?.body) return')
  })

  test('a paginator whose text changed fails loudly instead of shipping half the change', () => {
    expect(() => preloadFoliateSections('export class Paginator {}')).toThrow(
      /foliate-js\/paginator\.js changed/,
    )
  })
})
