import { eq } from 'drizzle-orm'
import JSZip from 'jszip'
import { describe, expect } from 'vitest'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import {
  createAppPassword,
  listAppPasswords,
  MAX_APP_PASSWORDS,
  revokeAppPassword,
} from '#app/features/identity/app-passwords.server.ts'
import { publishBookFiles } from '#app/features/library/book-files.server.ts'
import { appSignInFailures } from '#app/features/opds/opds-auth.server.ts'
import { refundOrder } from '#app/features/orders/refunds.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { appPasswords } from '#app/server/db/schema/index.server.ts'
import * as account from '#app/routes/account.tsx'
import * as libraryDownload from '#app/routes/library-download.ts'
import * as opds from '#app/routes/opds.ts'
import { createBuyer } from '#harness/factories/buyers.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { readOpds1, readOpds2 } from '#tests/readium-opds.ts'
import { routeArgs, servicesFor, thrownBy } from '#tests/route-args.ts'

/**
 * Issue 33: a reading app signs in to a reader's library with their email and an app password (HTTP Basic),
 * lists their books and downloads their stamped copy — and nothing else. Read as Thorium reads it
 * (Readium's r2-opds-js).
 */

let database: TestDatabase
let catalogue: Awaited<ReturnType<typeof listBooks>>
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await listBooks(database.db)
  await publishBookFiles(database.db, servicesFor(database.db).storage, createLogger('silent'))
})

const ORIGIN = 'http://localhost:3000'
const basic = (email: string, password: string) =>
  `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`

let nextIp = 1
/** Each test its own client address, so the wrong-credential counts of one do not reach another. */
const freshIp = () => `10.33.0.${nextIp++}`

async function feed(path: string, authorization?: string, clientIp = freshIp()): Promise<Response> {
  const splat = new URL(path, ORIGIN).pathname.replace(/^\/opds\/?/, '')
  return opds.loader(
    routeArgs({
      db: database.db,
      path,
      clientIp,
      params: { '*': splat },
      init: { headers: authorization ? { Authorization: authorization } : {} },
    }) as never,
  )
}

async function libraryTitles(authorization: string): Promise<string[]> {
  const response = await feed('/opds/library', authorization)
  expect(response.status).toBe(200)
  const parsed = readOpds1(await response.text()).feed
  return (parsed.Entries ?? []).map((entry) => entry.Title)
}

describe('app passwords', () => {
  test('made with a name, shown once, listed by name and hint, revoked', async () => {
    const buyer = await createBuyer(database.db, [catalogue[0]!.id])
    const made = await createAppPassword(database.db, buyer.userId, 'KOReader on my Kobo')
    expect(made!.password).toMatch(/^[0-9a-z]{4}(-[0-9a-z]{4}){4}$/)
    const [stored] = await database.db.select().from(appPasswords).where(eq(appPasswords.id, made!.id))
    expect(JSON.stringify(stored)).not.toContain(made!.password.replaceAll('-', ''))
    expect(await listAppPasswords(database.db, buyer.userId)).toMatchObject([
      { id: made!.id, name: 'KOReader on my Kobo', hint: made!.password.slice(0, 4), lastUsedAt: null },
    ])
    expect(await revokeAppPassword(database.db, buyer.userId, made!.id)).toBe(true)
    expect(await listAppPasswords(database.db, buyer.userId)).toEqual([])
  })

  test(`at most ${MAX_APP_PASSWORDS} per reader, even when asked for at once`, async () => {
    const buyer = await createBuyer(database.db, [catalogue[0]!.id])
    const made = await Promise.all(
      Array.from({ length: MAX_APP_PASSWORDS + 5 }, (_, n) =>
        createAppPassword(database.db, buyer.userId, `App ${n}`),
      ),
    )
    expect(made.filter(Boolean)).toHaveLength(MAX_APP_PASSWORDS)
  })
})

describe('the library feed', () => {
  test('a good app password lists the reader’s books with their downloads, in both versions', async () => {
    const [first, second] = catalogue
    const buyer = await createBuyer(database.db, [first!.id, second!.id])
    const { password } = (await createAppPassword(database.db, buyer.userId, 'Thorium'))!
    const authorization = basic(buyer.email, password)

    const response = await feed('/opds/library', authorization)
    expect(response.headers.get('Cache-Control')).toBe('private, no-store')
    const parsed = readOpds1(await response.text()).feed
    expect(parsed.Entries!.map((entry) => entry.Title).sort()).toEqual([first!.title, second!.title].sort())
    const links = parsed
      .Entries!.find((entry) => entry.Title === first!.title)!
      .Links.filter((link) => link.Rel === 'http://opds-spec.org/acquisition')
    expect(links.map((link) => [link.Href, link.Type])).toEqual([
      [`${ORIGIN}/library/${first!.slug}/download.pdf`, 'application/pdf'],
      [`${ORIGIN}/library/${first!.slug}/download.epub`, 'application/epub+zip'],
    ])

    const v2 = await feed('/opds/v2/library', authorization)
    const publications = readOpds2(await v2.json()).Publications!
    expect(publications.map((p) => p.Metadata.Title).sort()).toEqual([first!.title, second!.title].sort())
    const [row] = await listAppPasswords(database.db, buyer.userId)
    expect(row!.lastUsedAt).not.toBeNull()
  })

  test('no, wrong or revoked credentials get 401 with how to sign in; a reader’s password never opens another’s library', async () => {
    const alice = await createBuyer(database.db, [catalogue[0]!.id])
    const bob = await createBuyer(database.db, [catalogue[1]!.id])
    const alices = (await createAppPassword(database.db, alice.userId, 'KOReader'))!
    const bobs = (await createAppPassword(database.db, bob.userId, 'KOReader'))!

    const anonymous = await feed('/opds/library')
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('WWW-Authenticate')).toBe('Basic realm="CodeBook library", charset="UTF-8"')
    expect(anonymous.headers.get('Link')).toBe(
      `<${ORIGIN}/opds/auth.json>; rel="http://opds-spec.org/auth/document"; type="application/opds-authentication+json"`,
    )
    expect((await feed('/opds/library', basic(alice.email, 'aaaa-bbbb-cccc-dddd-eeee'))).status).toBe(401)
    expect((await feed('/opds/library', basic(alice.email, bobs.password))).status).toBe(401)
    // The account's own password is not an app password.
    expect((await feed('/opds/library', basic(alice.email, 'correct horse battery staple'))).status).toBe(401)
    expect(await libraryTitles(basic(alice.email, alices.password))).toEqual([catalogue[0]!.title])
    expect(
      await libraryTitles(basic(bob.email.toUpperCase(), bobs.password.toUpperCase().replaceAll('-', ' '))),
    ).toEqual([catalogue[1]!.title])

    await revokeAppPassword(database.db, alice.userId, alices.id)
    expect((await feed('/opds/library', basic(alice.email, alices.password))).status).toBe(401)

    const document = await feed('/opds/auth.json')
    expect(document.headers.get('Content-Type')).toBe('application/opds-authentication+json; charset=utf-8')
    expect(await document.json()).toMatchObject({
      authentication: [
        { type: 'http://opds-spec.org/auth/basic', labels: { login: 'Email', password: 'App password' } },
      ],
    })
  })

  test('wrong credentials from one address are stopped with 429; the owner elsewhere still gets in', async () => {
    const buyer = await createBuyer(database.db, [catalogue[0]!.id])
    const { password } = (await createAppPassword(database.db, buyer.userId, 'Calibre'))!
    const attacker = freshIp()
    const statuses: number[] = []
    for (let attempt = 0; attempt <= appSignInFailures.limit; attempt++) {
      statuses.push(
        (
          await feed(
            '/opds/library',
            basic(buyer.email, `zzzz-zzzz-zzzz-zzzz-${String(attempt).padStart(4, 'z')}`),
            attacker,
          )
        ).status,
      )
    }
    expect(statuses.slice(0, appSignInFailures.limit).every((status) => status === 401)).toBe(true)
    expect(statuses.at(-1)).toBe(429)
    const refused = await feed('/opds/library', basic(buyer.email, password), attacker)
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0)
    expect((await feed('/opds/library', basic(buyer.email, password), freshIp())).status).toBe(200)
  })

  test('a refunded book leaves the feed', async () => {
    const buyer = await createBuyer(database.db, [catalogue[2]!.id])
    const { password } = (await createAppPassword(database.db, buyer.userId, 'Apple Books'))!
    expect(await libraryTitles(basic(buyer.email, password))).toEqual([catalogue[2]!.title])
    expect(await refundOrder(database.db, buyer.orderId)).toBe('refunded')
    expect(await libraryTitles(basic(buyer.email, password))).toEqual([])
  })
})

describe('downloads and nothing else', () => {
  test('an app downloads the reader’s stamped EPUB with the app password, counted like any download', async () => {
    const book = catalogue[0]!
    const buyer = await createBuyer(database.db, [book.id])
    const { password } = (await createAppPassword(database.db, buyer.userId, 'KOReader'))!
    const download = (authorization: string) =>
      libraryDownload.loader(
        routeArgs({
          db: database.db,
          path: `/library/${book.slug}/download.epub`,
          clientIp: freshIp(),
          params: { slug: book.slug, file: 'download.epub' },
          init: { headers: { Authorization: authorization } },
        }),
      )
    const response = await download(basic(buyer.email, password))
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('application/epub+zip')
    const zip = await JSZip.loadAsync(await response.arrayBuffer())
    expect(await zip.file('OEBPS/prepared-for.xhtml')!.async('string')).toContain(buyer.email)
    expect((await download(basic(buyer.email, 'aaaa-bbbb-cccc-dddd-eeee'))).status).toBe(401)
  })

  test('an app password does not open the account page', async () => {
    const buyer = await createBuyer(database.db, [catalogue[0]!.id])
    const { password } = (await createAppPassword(database.db, buyer.userId, 'KOReader'))!
    const thrown = await thrownBy(() =>
      account.loader(
        routeArgs({
          db: database.db,
          path: '/account',
          init: { headers: { Authorization: basic(buyer.email, password) } },
        }) as never,
      ),
    )
    expect(thrown).toBeInstanceOf(Response)
    expect((thrown as Response).status).toBe(302)
    expect((thrown as Response).headers.get('Location')).toContain('/login')
  })
})
