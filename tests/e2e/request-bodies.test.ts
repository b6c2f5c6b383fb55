import { expect, inject, test } from 'vitest'

/**
 * Bodies no browser form would send, against the production build: each gets a 4xx with a message from the
 * host or from the route's form reading, never a 500.
 */
const baseURL = inject('baseURL')

const post = (path: string, body: BodyInit, contentType: string) =>
  fetch(`${baseURL}${path}`, {
    method: 'POST',
    body,
    headers: { Origin: baseURL, 'Content-Type': contentType },
    redirect: 'manual',
  })

test.each(['/login', '/Register', '/logout', '/cart', '/theme'])(
  'a malformed multipart body posted to %s is a 400 page, not a 500',
  async (path) => {
    const response = await post(path, 'not multipart at all', 'multipart/form-data; boundary=zz')
    expect(response.status).toBe(400)
    expect(await response.text()).toContain('This form could not be read')
  },
)

test('JSON posted to a form is refused with 415', async () => {
  const response = await post('/login', '{"email":"a@example.com"}', 'application/json')
  expect(response.status).toBe(415)
})

test('a well-formed multipart form still works (the theme form)', async () => {
  const form = new FormData()
  form.set('theme', 'dark')
  form.set('redirectTo', '/AllBooks')
  const response = await fetch(`${baseURL}/theme`, {
    method: 'POST',
    body: form,
    headers: { Origin: baseURL },
    redirect: 'manual',
  })
  expect(response.status).toBe(303)
  expect(response.headers.get('Location')).toBe('/AllBooks')
})
