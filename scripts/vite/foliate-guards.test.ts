import fs from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, test } from 'vitest'
import { foliateGuards, guardFoliatePaginator } from './foliate-guards'

const installed = createRequire(import.meta.url).resolve('foliate-js/paginator.js')

describe('foliate-js paginator guards', () => {
  test('every guard applies to the installed paginator, once', () => {
    const source = fs.readFileSync(installed, 'utf8')
    const guarded = guardFoliatePaginator(source)
    for (const [before, after] of foliateGuards) {
      expect(guarded).not.toContain(before)
      expect(guarded.split(after)).toHaveLength(2)
    }
  })

  test('a paginator whose text changed fails loudly instead of shipping unguarded', () => {
    expect(() => guardFoliatePaginator('export class Paginator {}')).toThrow(
      /foliate-js\/paginator\.js changed/,
    )
  })
})
