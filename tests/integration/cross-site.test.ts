import { afterAll, beforeAll, expect, test } from 'vitest'
import { startHttpApp } from '#tests/http-app.ts'

let app: Awaited<ReturnType<typeof startHttpApp>>
let baseUrl: string
beforeAll(async () => {
  app = await startHttpApp({ BETTER_AUTH_URL: 'https://books.example' })
  baseUrl = app.url
})
afterAll(() => app.close())

const post = (headers: Record<string, string>) =>
  fetch(`${baseUrl}/cart`, { method: 'POST', headers, body: new URLSearchParams({ intent: 'add' }) })

test.each([
  ['another site’s Origin', { Origin: 'https://evil.example' }],
  ['a look-alike of our origin', { Origin: 'https://books.example.evil.example' }],
  ['an opaque origin', { Origin: 'null' }],
  ['Sec-Fetch-Site: cross-site', { 'Sec-Fetch-Site': 'cross-site' }],
  ['Sec-Fetch-Site: same-site (a sibling subdomain)', { 'Sec-Fetch-Site': 'same-site' }],
])('a POST from %s is refused with 403 before any action runs', async (_, headers) => {
  const response = await post(headers)
  expect(response.status).toBe(403)
  expect(await response.text()).toContain('Cross-site request refused')
})

test.each([
  ['our public origin', { Origin: 'https://books.example', 'Sec-Fetch-Site': 'same-origin' }],
  ['the origin it was addressed to', { Origin: 'REPLACED' }],
  // what Chromium sends from a page with `Referrer-Policy: no-referrer` (/account/verify-email?token=…)
  [
    'a page of ours that sends no referrer (an opaque origin, same-origin)',
    { Origin: 'null', 'Sec-Fetch-Site': 'same-origin' },
  ],
  ['a client that sends neither header', {}],
])('a POST from %s goes through', async (_, headers: Record<string, string>) => {
  const response = await post(headers.Origin === 'REPLACED' ? { Origin: baseUrl } : headers)
  expect(response.status).not.toBe(403)
})

test('Stripe’s webhook POST, which carries neither Origin nor Sec-Fetch-Site, goes through', async () => {
  const response = await fetch(`${baseUrl}/webhooks/stripe`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'User-Agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      'Stripe-Signature': 't=1,v1=00',
    },
    body: '{}',
  })
  expect(response.status).not.toBe(403)
  expect(await response.text()).not.toContain('Cross-site request refused')
})

test('reads are never refused', async () => {
  const response = await fetch(`${baseUrl}/healthz`, {
    headers: { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
  })
  expect(response.status).toBe(200)
})

test.each(['/login', '/Register', '/logout', '/cart', '/theme'])(
  'every state-changing form (%s) refuses another site’s post',
  async (path) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
      body: new URLSearchParams({ email: 'a@example.com', password: 'correct horse battery' }),
    })
    expect(response.status).toBe(403)
  },
)

test('forms may lead only to this site, and to Stripe Checkout when Stripe takes the payments', async () => {
  const formAction = async (env: Record<string, string>) => {
    const store = await startHttpApp(env)
    try {
      const policy = (await fetch(`${store.url}/healthz`)).headers.get('Content-Security-Policy') ?? ''
      return policy.split('; ').find((directive) => directive.startsWith('form-action'))
    } finally {
      await store.close()
    }
  }
  expect(await formAction({})).toBe("form-action 'self'")
  expect(
    await formAction({ STRIPE_SECRET_KEY: 'sk_test_codebook', STRIPE_WEBHOOK_SECRET: 'whsec_codebook' }),
  ).toBe("form-action 'self' https://checkout.stripe.com")
})
