import crypto from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import { expect, test } from 'vitest'
import { EMPTY_STYLE_HASH, PAGINATOR_STYLE_HASH } from './reader-policy.server.ts'

const hashOf = (text: string) => `'sha256-${crypto.createHash('sha256').update(text).digest('base64')}'`

test('the hash the reader’s policy allows is the installed paginator’s own <style>', () => {
  const source = fs.readFileSync(createRequire(import.meta.url).resolve('foliate-js/paginator.js'), 'utf8')
  const style = /this\.#root\.innerHTML = `<style>([\s\S]*?)<\/style>/.exec(source)?.[1]
  expect(style, 'the paginator’s shadow-root style, where foliate-js 1.0.1 has it').toBeDefined()
  expect(style).not.toMatch(/\$\{|\\/)
  expect(PAGINATOR_STYLE_HASH).toBe(hashOf(style!))
  expect(EMPTY_STYLE_HASH).toBe(hashOf(''))
})
