import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import Provider from 'oidc-provider'
import { CookieJar } from '#harness/cookie-jar.ts'
import { freePort } from '#harness/store-process.ts'

/** A person who can sign in at the test provider: its login form takes the `login` as the account id. */
export type ProviderAccount = { email: string; emailVerified: boolean; name: string }

export type TestOidcProvider = {
  issuer: string
  clientId: string
  clientSecret: string
  /** Accounts by login; add to it at any time. */
  accounts: Map<string, ProviderAccount>
  close(): Promise<void>
}

/**
 * A real OpenID Connect provider (`oidc-provider`, the certified implementation) on 127.0.0.1, with its
 * development login and consent pages: any login listed in `accounts`, any password. One confidential client
 * whose redirect URIs are given.
 */
export async function startOidcProvider(options: { redirectUris: string[] }): Promise<TestOidcProvider> {
  const port = await freePort()
  const issuer = `http://127.0.0.1:${port}`
  const accounts = new Map<string, ProviderAccount>()
  const clientId = 'codebook-test'
  const clientSecret = 'codebook-test-secret-0123456789abcdef'
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_ctx, id) => {
      const person = accounts.get(id)
      if (!person) return undefined
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          email: person.email,
          email_verified: person.emailVerified,
          name: person.name,
        }),
      }
    },
    cookies: { keys: ['codebook-test-provider-cookie-key'] },
    features: { devInteractions: { enabled: true } },
    ttl: {
      Interaction: 600,
      Session: 600,
      Grant: 600,
      AccessToken: 600,
      IdToken: 600,
      AuthorizationCode: 60,
    },
  })
  const server: Server = await new Promise((resolve) => {
    const listening = provider.listen(port, '127.0.0.1', () => resolve(listening))
  })
  void (server.address() as AddressInfo)
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * Goes through the provider's own login and consent pages over HTTP, as a browser without JavaScript would,
 * starting at the authorization URL the store redirected to. Returns the URL the provider sends the browser
 * back to (the store's callback, with `code` and `state`, or `error=access_denied` when `deny`).
 */
export async function signInAtProvider(
  authorizationUrl: string,
  { login, deny = false }: { login: string; deny?: boolean },
): Promise<URL> {
  const jar = new CookieJar()
  let url = new URL(authorizationUrl)
  const origin = url.origin
  for (let step = 0; step < 12; step++) {
    if (url.origin !== origin) return url
    const page = await fetch(url, { redirect: 'manual', headers: { Cookie: jar.header() } })
    jar.take(page)
    if (page.status >= 300 && page.status < 400) {
      url = new URL(page.headers.get('Location')!, url)
      continue
    }
    const html = await page.text()
    if (page.status !== 200) throw new Error(`the provider answered ${page.status}: ${html.slice(0, 300)}`)
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1]
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
    if (!prompt || !action) throw new Error(`unexpected provider page: ${html.slice(0, 300)}`)
    const target = deny ? new URL(`${new URL(action, url).pathname}/abort`, url) : new URL(action, url)
    const body =
      prompt === 'login'
        ? new URLSearchParams({ prompt, login, password: 'any password' })
        : new URLSearchParams({ prompt })
    const submitted = deny
      ? await fetch(target, { redirect: 'manual', headers: { Cookie: jar.header() } })
      : await fetch(target, {
          method: 'POST',
          redirect: 'manual',
          headers: { Cookie: jar.header(), 'Content-Type': 'application/x-www-form-urlencoded' },
          body,
        })
    jar.take(submitted)
    if (submitted.status < 300 || submitted.status >= 400)
      throw new Error(`the provider refused the ${prompt} form: ${submitted.status}`)
    url = new URL(submitted.headers.get('Location')!, target)
  }
  throw new Error('too many steps at the provider')
}
