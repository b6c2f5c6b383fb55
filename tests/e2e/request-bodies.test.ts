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

type RouteEntry = { path?: string; file: string; index?: boolean; children?: RouteEntry[] }

/** Every URL of app/routes.ts whose module has no action, with its params filled in, and whether it is a page. */
async function routesWithoutAction() {
  const { default: routes } = await import('#app/routes.ts')
  const fs = await import('node:fs/promises')
  const found: { path: string; page: boolean }[] = []
  const walk = async (entries: RouteEntry[], parent: string) => {
    for (const entry of entries) {
      const path = entry.path ? `${parent}/${entry.path}` : parent
      const source = await fs.readFile(new URL(`../../app/${entry.file}`, import.meta.url), 'utf8')
      const hasAction = /^export (async )?function action\b|^export const action\b/m.test(source)
      if (!hasAction && (entry.path || entry.index))
        found.push({
          path: (path || '/').replace(/:\w+/g, 'x').replace(/\*$/, 'no-such-page'),
          page: /^export default\b/m.test(source),
        })
      await walk(entry.children ?? [], path)
    }
  }
  await walk(routes as RouteEntry[], '')
  return found
}

test('a POST to any address that takes none is a clean 405 with Allow: the store’s page, or JSON when asked (issue 28)', async () => {
  const routes = await routesWithoutAction()
  expect(routes.map((route) => route.path)).toEqual(
    expect.arrayContaining([
      '/search/suggest',
      '/robots.txt',
      '/sitemap.xml',
      '/media/covers/x',
      '/AllBooks',
    ]),
  )
  for (const { path, page } of routes) {
    for (const accept of ['text/html', 'application/json']) {
      const response = await fetch(`${baseURL}${path}`, {
        method: 'POST',
        body: new URLSearchParams({ q: 'x' }),
        headers: { Origin: baseURL, Accept: accept },
        redirect: 'manual',
      })
      const body = await response.text()
      const what = `POST ${path} (${accept})`
      expect(response.status, what).toBe(405)
      expect(response.headers.get('allow'), what).toBe('GET, HEAD')
      expect(body, what).not.toContain('Unexpected Server Error')
      if (accept === 'application/json') {
        expect(response.headers.get('content-type'), what).toMatch(/^application\/json/)
        expect(JSON.parse(body), what).toEqual({ error: expect.stringContaining('does not take') })
      } else {
        expect(response.headers.get('content-type'), what).toMatch(/^text\/html/)
        expect(body, what).toMatch(/<h1[^>]*>405 Method Not Allowed<\/h1>/)
        expect(body, what).toContain('does not take')
        // A page of the store's own (header and all) where React Router renders one.
        if (page) expect(body, what).toContain('href="/AllBooks"')
      }
    }
  }
})
