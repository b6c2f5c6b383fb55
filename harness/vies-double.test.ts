import fs from 'node:fs'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startViesDouble, type ViesDouble } from './vies-double.ts'

/** The double itself: every recording is served for its own number, and nothing else is made up. */
let vies: ViesDouble
beforeAll(async () => {
  vies = await startViesDouble()
})
afterAll(async () => {
  await vies?.stop()
})

const ask = (body: unknown) =>
  fetch(`${vies.url}/check-vat-number`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

test('each file in tests/fixtures/vies answers its own request with its recorded status and body', async () => {
  const folder = new URL('../tests/fixtures/vies/', import.meta.url)
  const files = fs.readdirSync(folder).filter((name) => name.endsWith('.json'))
  expect(files.length).toBeGreaterThanOrEqual(7)
  const asked = []
  for (const file of files) {
    const recorded = JSON.parse(fs.readFileSync(new URL(file, folder), 'utf8'))
    asked.push(recorded.request)
    const response = await ask(recorded.request)
    expect(response.status, file).toBe(recorded.response.status)
    const body = await response.text()
    expect(body, file).toBe(recorded.response.text ?? JSON.stringify(recorded.response.json))
  }
  expect(vies.requests).toEqual(asked)
})

test('a number with no recording is a 404 that names it', async () => {
  const response = await ask({ countryCode: 'DE', vatNumber: '113298780' })
  expect(response.status).toBe(404)
  expect(await response.text()).toBe('no recorded answer for DE113298780')
  expect(vies.requests.at(-1)).toEqual({ countryCode: 'DE', vatNumber: '113298780' })
})
