import { expect, test } from 'vitest'
import { readForm } from './form.server.ts'

const request = (body: string, type: string) =>
  new Request('http://store.test/login', { method: 'POST', body, headers: { 'Content-Type': type } })

test('a well-formed form is read', async () => {
  const form = await readForm(request('email=a%40example.com', 'application/x-www-form-urlencoded'))
  expect(form.get('email')).toBe('a@example.com')
})

test('a malformed multipart body is a 400 with a message, not a TypeError (a 500)', async () => {
  const refused = await readForm(request('garbage', 'multipart/form-data; boundary=zz')).catch((e) => e)
  expect(refused).toMatchObject({
    init: { status: 400 },
    data: { title: 'This form could not be read' },
  })
})
