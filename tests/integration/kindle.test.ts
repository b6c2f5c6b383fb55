import { eq } from 'drizzle-orm'
import JSZip from 'jszip'
import { afterAll, beforeEach, describe, expect } from 'vitest'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { deleteAccount, exportAccountData } from '#app/features/identity/account-deletion.server.ts'
import { publishBookFiles } from '#app/features/library/book-files.server.ts'
import { KINDLE_RESEND_AFTER_MS, kindleMessages } from '#app/features/library/kindle.server.ts'
import {
  emailAttachments,
  emailOutbox,
  kindleDeliveries,
  libraryItems,
} from '#app/server/db/schema/index.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import type { Mailer } from '#app/server/mail.server.ts'
import { deliverDueEmails } from '#app/server/outbox.server.ts'
import * as account from '#app/routes/account.tsx'
import * as library from '#app/routes/library.tsx'
import type { StoreServices } from '#app/services.server.ts'
import { createBuyer } from '#harness/factories/buyers.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { answerOf, routeArgs, servicesFor } from '#tests/route-args.ts'
import { mailerFor, startSmtpServer, type TestSmtpServer } from '#tests/smtp.ts'

/**
 * Issue 33's Send to Kindle: a reader saves their Kindle's address on /account, and 'Send to Kindle' on a
 * library book mails their stamped EPUB there through the outbox — read back here from a real SMTP server
 * with its attachment — once an hour at most, within the mail size limit, its state shown in the library.
 */

const logger = createLogger('silent')
let database: TestDatabase
let catalogue: Awaited<ReturnType<typeof listBooks>>
let smtp: TestSmtpServer
let mailer: Mailer
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await listBooks(database.db)
  await publishBookFiles(database.db, servicesFor(database.db).storage, logger)
  smtp = await startSmtpServer()
  mailer = mailerFor(smtp, logger)
})
afterAll(async () => {
  await smtp.close()
})
beforeEach(() => {
  smtp.received.length = 0
  smtp.refuseMessages = undefined
})

type Reader = { cookie: string; userId: string; email: string }

function post(
  route: { action: (args: never) => Promise<unknown> },
  path: string,
  reader: Reader,
  fields: Record<string, string>,
  services?: StoreServices,
) {
  return answerOf(
    route.action(
      routeArgs({
        db: database.db,
        path,
        cookie: reader.cookie,
        services,
        init: { method: 'POST', body: new URLSearchParams(fields) },
      }) as never,
    ),
  )
}

const saveAddress = (reader: Reader, kindleAddress: string) =>
  post(account, '/account', reader, { intent: 'save-kindle-address', kindleAddress })
const send = (reader: Reader, slug: string, services?: StoreServices) =>
  post(library, '/account/library', reader, { intent: 'send-to-kindle', slug }, services)

async function libraryPage(reader: Reader) {
  const answer = await answerOf(
    library.loader(routeArgs({ db: database.db, path: '/account/library', cookie: reader.cookie }) as never),
  )
  return answer.body as Awaited<ReturnType<typeof library.loader>>
}

/** Sends what is due and returns the mails that went to a Kindle (receipts and confirmations go too). */
async function deliver() {
  await deliverDueEmails(database.db, mailer, { logger })
  return smtp.received.splice(0).filter((mail) => mail.envelope.to.some((to) => to.endsWith('@kindle.com')))
}

async function downloadsOf(reader: Reader) {
  const [row] = await database.db
    .select({ count: libraryItems.downloadCount })
    .from(libraryItems)
    .where(eq(libraryItems.userId, reader.userId))
  return row!.count
}

describe('the Kindle address', () => {
  test('must be an @kindle.com address; saved trimmed and in lower case, shown on /account', async () => {
    const reader = await createBuyer(database.db, [catalogue[0]!.id])
    for (const wrong of ['', 'me@gmail.com', 'me@kindle.com.evil.org', 'not an address', 'me@kindle.co']) {
      const refused = await saveAddress(reader, wrong)
      expect(refused.status).toBe(400)
      expect((refused.body!.fieldErrors as Record<string, string>).kindleAddress).toBe(
        wrong === '' ? kindleMessages.missing : kindleMessages.notKindle,
      )
    }
    const saved = await saveAddress(reader, '  Ada_Reader.42@Kindle.com ')
    expect(saved.status).toBe(200)
    expect(saved.body!.notice).toContain('ada_reader.42@kindle.com')
    const page = await answerOf(
      account.loader(routeArgs({ db: database.db, path: '/account', cookie: reader.cookie }) as never),
    )
    expect(page.body!.kindle).toEqual({
      address: 'ada_reader.42@kindle.com',
      sender: 'orders@codebook.localhost',
      maxSize: '20 MB',
    })
    expect((await saveAddress(reader, 'ada@free.kindle.com')).status).toBe(200)
    expect(
      (await post(account, '/account', reader, { intent: 'remove-kindle-address' })).body!.notice,
    ).toMatch(/removed/)
    expect(((await libraryPage(reader)) as { kindleAddress: string | null }).kindleAddress).toBeNull()
  })

  test('without one, a book is not sent: the reader is told where to add it', async () => {
    const reader = await createBuyer(database.db, [catalogue[0]!.id])
    const refused = await send(reader, catalogue[0]!.slug)
    expect(refused).toMatchObject({ status: 409, body: { error: kindleMessages.noAddress } })
  })
})

describe('sending a book', () => {
  test('mails the reader’s stamped EPUB to their Kindle; queued, then sent; counted as a download', async () => {
    const book = catalogue[0]!
    const reader = await createBuyer(database.db, [book.id])
    await saveAddress(reader, 'ada@kindle.com')

    const sent = await send(reader, book.slug)
    expect(sent).toMatchObject({
      status: 200,
      body: { notice: `“${book.title}” is on its way to ada@kindle.com.` },
    })
    expect((await libraryPage(reader)).books[0]!.kindle).toMatchObject({ state: 'queued', retrying: false })
    expect(await downloadsOf(reader)).toBe(1)

    const mails = await deliver()
    expect(mails).toHaveLength(1)
    const [mail] = mails
    expect(mail!.envelope).toEqual({ from: 'orders@codebook.localhost', to: ['ada@kindle.com'] })
    expect(mail!.parsed.text).toContain(`prepared for ${reader.email}`)
    expect(mail!.parsed.attachments).toHaveLength(1)
    const [attachment] = mail!.parsed.attachments
    expect(attachment).toMatchObject({ filename: `${book.slug}.epub`, contentType: 'application/epub+zip' })
    const zip = await JSZip.loadAsync(attachment!.content)
    expect(await zip.file('mimetype')!.async('string')).toBe('application/epub+zip')
    expect(await zip.file('OEBPS/prepared-for.xhtml')!.async('string')).toContain(reader.email)

    expect((await libraryPage(reader)).books[0]!.kindle).toMatchObject({ state: 'sent' })
    // Sent: the copy is not kept in the database.
    expect(await database.db.select().from(emailAttachments)).toEqual([])
  })

  test('once an hour per book: a second send is refused with when it may go again', async () => {
    const [first, second] = catalogue
    const reader = await createBuyer(database.db, [first!.id, second!.id])
    await saveAddress(reader, 'grace@kindle.com')
    expect((await send(reader, first!.slug)).status).toBe(200)

    const again = await send(reader, first!.slug)
    expect(again.status).toBe(429)
    expect(again.body!.error).toMatch(/less than an hour ago\. You can send it again in (59|60) minutes\./)
    expect(Number(again.headers.get('Retry-After'))).toBeGreaterThan(3500)
    // Another book is not held back.
    expect((await send(reader, second!.slug)).status).toBe(200)
    expect(await deliver()).toHaveLength(2)

    // An hour later it may go again.
    await database.db
      .update(kindleDeliveries)
      .set({ createdAt: new Date(Date.now() - KINDLE_RESEND_AFTER_MS - 1000) })
      .where(eq(kindleDeliveries.userId, reader.userId))
    expect((await send(reader, first!.slug)).status).toBe(200)
    expect(await deliver()).toHaveLength(1)
  })

  test('a book larger than the mail limit gets a clear message; nothing is queued or counted', async () => {
    const book = catalogue[0]!
    const reader = await createBuyer(database.db, [book.id])
    await saveAddress(reader, 'linus@kindle.com')
    const base = servicesFor(database.db)
    const tiny = { ...base, env: { ...base.env, MAIL_MAX_ATTACHMENT_MB: 0.001 } }

    const refused = await send(reader, book.slug, tiny)
    expect(refused.status).toBe(413)
    expect(refused.body!.error).toMatch(
      new RegExp(
        `^“${book.title}” is \\d+ KB as an EPUB, more than the 1 KB we can send by mail\\. Download the EPUB`,
      ),
    )
    expect(await downloadsOf(reader)).toBe(0)
    expect(
      await database.db.select().from(kindleDeliveries).where(eq(kindleDeliveries.userId, reader.userId)),
    ).toEqual([])
    expect(await deliver()).toEqual([])
  })

  test('a mail the server refuses for good shows as failed, and may be sent again at once', async () => {
    const book = catalogue[0]!
    const reader = await createBuyer(database.db, [book.id])
    await saveAddress(reader, 'margaret@kindle.com')
    smtp.refuseMessages = '552 Message size exceeds fixed maximum message size'
    expect((await send(reader, book.slug)).status).toBe(200)
    expect(await deliver()).toEqual([])

    const failed = (await libraryPage(reader)).books[0]!.kindle
    expect(failed).toMatchObject({ state: 'failed', error: expect.stringMatching(/552.*message size/i) })
    const [row] = await database.db
      .select()
      .from(emailOutbox)
      .where(eq(emailOutbox.to, 'margaret@kindle.com'))
    expect(row!.failedAt).not.toBeNull()
    // Given up: its copy is dropped, and later runs do not try it again.
    expect(
      await database.db.select().from(emailAttachments).where(eq(emailAttachments.emailId, row!.id)),
    ).toEqual([])
    smtp.refuseMessages = undefined
    expect(await deliver()).toEqual([])

    expect((await send(reader, book.slug)).status).toBe(200)
    expect(await deliver()).toHaveLength(1)
    expect((await libraryPage(reader)).books[0]!.kindle).toMatchObject({ state: 'sent' })
  })

  test('only the owner’s books, by a known slug', async () => {
    const [owned, other] = catalogue
    const reader = await createBuyer(database.db, [owned!.id])
    await saveAddress(reader, 'barbara@kindle.com')
    expect(await send(reader, other!.slug)).toMatchObject({ status: 403 })
    expect(await send(reader, 'no-such-book')).toMatchObject({ status: 404 })
    expect(await send(reader, '../../etc/passwd')).toMatchObject({ status: 400 })
    expect(await deliver()).toEqual([])
  })
})

test('account deletion withdraws a book still waiting to go and forgets the Kindle; the export lists it', async () => {
  const book = catalogue[0]!
  const reader = await createBuyer(database.db, [book.id])
  await saveAddress(reader, 'edsger@kindle.com')
  expect((await send(reader, book.slug)).status).toBe(200)

  const exported = await exportAccountData(database.db, reader.userId)
  expect(exported.kindle).toMatchObject({
    address: 'edsger@kindle.com',
    deliveries: [{ book: book.title, address: 'edsger@kindle.com', sentAt: null }],
  })

  await deleteAccount(
    { ...servicesFor(database.db), clientIp: '127.0.0.1' },
    { userId: reader.userId, email: reader.email },
  )
  expect(await database.db.select().from(emailOutbox).where(eq(emailOutbox.to, 'edsger@kindle.com'))).toEqual(
    [],
  )
  expect(await deliver()).toEqual([])
})
