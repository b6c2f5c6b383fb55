import { and, asc, eq, gt, like, sql } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { addToCart, listCartBookIds, requireUserCart } from '#app/features/cart/cart.server.ts'
import { cardBrand } from '#app/features/orders/card.ts'
import { placeOrderWithCard } from '#app/features/orders/card-checkout.server.ts'
import { getCheckout } from '#app/features/orders/checkout-summary.server.ts'
import { createTestPaymentProvider } from '#app/features/orders/payments.server.ts'
import { refundOrder } from '#app/features/orders/refunds.server.ts'
import { resendGift } from '#app/features/gifts/gift-delivery.server.ts'
import {
  books,
  bundles,
  emailOutbox,
  gifts,
  libraryItems,
  orders,
} from '#app/server/db/schema/index.server.ts'
import * as accountGifts from '#app/routes/account-gifts.tsx'
import * as adminBundles from '#app/routes/admin/bundles.tsx'
import * as checkoutRoute from '#app/routes/checkout.tsx'
import * as giftClaim from '#app/routes/gift-claim.tsx'
import * as giftForm from '#app/routes/gift.tsx'
import { createReader } from '#harness/factories/buyers.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { answerOf, routeArgs } from '#tests/route-args.ts'

/**
 * Issue 30's gifts through the store's own entrances: the gift form (every field checked), its checkout (the
 * gift alone, not the buyer's cart), the recipient's mail held for its day, the claim link (once, by whoever
 * signs in first), sending it again, and a refund before the claim taking it back.
 */

let database: TestDatabase
let catalogue: { id: string; slug: string; priceCents: number; title: string }[]
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await database.db
    .select({ id: books.id, slug: books.slug, priceCents: books.priceCents, title: books.title })
    .from(books)
    .where(
      and(
        eq(books.status, 'published'),
        eq(books.available, true),
        eq(books.currency, 'USD'),
        gt(books.priceCents, 100),
      ),
    )
    .orderBy(asc(books.slug))
    .limit(6)
})

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

function postGiftForm(
  cookie: string | undefined,
  slug: string,
  fields: Record<string, string>,
  kind = 'books',
) {
  return answerOf(
    giftForm.action(
      routeArgs({
        db: database.db,
        path: `/gift/${kind}/${slug}`,
        cookie,
        params: { kind, slug },
        init: { method: 'POST', body: new URLSearchParams(fields) },
      }) as never,
    ),
  )
}

/** A gift made through its form: its id (from the redirect to its checkout). */
async function describeGift(cookie: string, slug: string, fields: Record<string, string>, kind = 'books') {
  const answer = await postGiftForm(
    cookie,
    slug,
    { recipientName: '', message: '', deliverOn: '', ...fields },
    kind,
  )
  expect(answer.status, JSON.stringify(answer.body)).toBe(303)
  const location = answer.headers.get('Location')!
  expect(location).toMatch(/^\/checkout\?gift=[0-9a-f-]{36}$/)
  return location.split('=')[1]!
}

const provider = createTestPaymentProvider()
async function payGift(userId: string, giftId: string) {
  const { idempotencyKey, attemptId } = await getCheckout(database.db, userId, { giftId })
  const number = '4242424242424242'
  return placeOrderWithCard(database.db, {
    userId,
    idempotencyKey,
    attemptId,
    giftId,
    card: { number, brand: cardBrand(number), name: 'Ada Reader', expiry: '12/34', cvc: '123' },
    provider,
    orderUrl: (id) => `http://localhost:3000/orders/${id}`,
  })
}

async function giftMails(giftId: string) {
  return database.db
    .select()
    .from(emailOutbox)
    .where(and(eq(emailOutbox.kind, 'gift'), like(emailOutbox.subjectKey, `${giftId}:%`)))
    .orderBy(asc(emailOutbox.createdAt))
}

const tokenOf = (text: string) => /\/gifts\/claim\/([A-Za-z0-9_-]+)/.exec(text)![1]!

function claim(cookie: string | undefined, token: string) {
  return answerOf(
    giftClaim.action(
      routeArgs({
        db: database.db,
        path: `/gifts/claim/${token}`,
        cookie,
        params: { token },
        init: { method: 'POST', body: new URLSearchParams() },
      }) as never,
    ),
  )
}

describe('the gift form', () => {
  test('asks to sign in first; every bad field gets its message and nothing is written', async () => {
    const book = catalogue[0]!
    const signedOut = await postGiftForm(undefined, book.slug, { recipientEmail: 'friend@example.com' })
    expect(signedOut.status).toBe(302)
    expect(signedOut.headers.get('Location')).toMatch(/^\/login\?redirectTo=%2Fgift%2Fbooks%2F/)

    const buyer = await createReader(database.db)
    const before = (await database.db.select().from(gifts)).length
    const good = {
      recipientEmail: 'friend@example.com',
      recipientName: 'Grace',
      message: 'Enjoy!',
      deliverOn: '',
    }
    const bad: [Record<string, string>, string, RegExp][] = [
      [{ ...good, recipientEmail: 'not-an-email' }, 'recipientEmail', /email address/],
      [{ ...good, recipientEmail: buyer.email }, 'recipientEmail', /someone else/],
      [{ ...good, recipientName: 'x'.repeat(101) }, 'recipientName', /100/],
      [{ ...good, message: 'x'.repeat(1001) }, 'message', /1,000/],
      [{ ...good, deliverOn: '2026-02-30' }, 'deliverOn', /YYYY-MM-DD/],
      [{ ...good, deliverOn: day(-2) }, 'deliverOn', /from today/],
      [{ ...good, deliverOn: day(400) }, 'deliverOn', /from today/],
    ]
    for (const [fields, field, message] of bad) {
      const answer = await postGiftForm(buyer.cookie, book.slug, fields)
      expect(answer.status, JSON.stringify(fields)).toBe(400)
      expect(
        (answer.body as { errors: Record<string, string> }).errors[field],
        JSON.stringify(fields),
      ).toMatch(message)
    }
    const unknown = await postGiftForm(buyer.cookie, 'no-such-book', good)
    expect(unknown.status).toBe(404)
    const wrongKind = await postGiftForm(buyer.cookie, book.slug, good, 'authors')
    expect(wrongKind.status).toBe(404)
    expect((await database.db.select().from(gifts)).length).toBe(before)
  })
})

describe('a gift bought, delivered and claimed', () => {
  test('paid on its own, held for its day; the claim link puts it in the recipient’s library, once', async () => {
    const [book, inCart] = [catalogue[1]!, catalogue[2]!]
    const buyer = await createReader(database.db)
    // The buyer's own cart is left alone by a gift's checkout.
    const cartId = await requireUserCart(database.db, buyer.userId)
    await addToCart(database.db, cartId, inCart.id)
    const giftId = await describeGift(buyer.cookie, book.slug, {
      recipientEmail: 'Grace@Example.com',
      recipientName: 'Grace',
      message: 'Happy birthday <3',
      deliverOn: day(3),
    })
    const page = await answerOf(
      checkoutRoute.loader(
        routeArgs({ db: database.db, path: `/checkout?gift=${giftId}`, cookie: buyer.cookie }) as never,
      ),
    )
    expect(page.body).toMatchObject({
      step: 'pay',
      checkout: { totalCents: book.priceCents, gift: { id: giftId, recipientEmail: 'grace@example.com' } },
    })
    expect(
      (page.body as { checkout: { lines: { bookId: string }[] } }).checkout.lines.map((l) => l.bookId),
    ).toEqual([book.id])
    // Another reader cannot open or pay it.
    const other = await createReader(database.db)
    expect(
      (
        await answerOf(
          checkoutRoute.loader(
            routeArgs({ db: database.db, path: `/checkout?gift=${giftId}`, cookie: other.cookie }) as never,
          ),
        )
      ).status,
    ).toBe(404)
    expect((await payGift(other.userId, giftId)).outcome).toBe('empty-cart')

    const paid = await payGift(buyer.userId, giftId)
    expect(paid.outcome).toBe('paid')
    const orderId = (paid as { orderId: string }).orderId
    // Nobody owns it yet; the buyer's cart is as it was.
    expect(await database.db.select().from(libraryItems).where(eq(libraryItems.orderId, orderId))).toEqual([])
    expect(await listCartBookIds(database.db, cartId)).toEqual([inCart.id])
    const [mail] = await giftMails(giftId)
    expect(mail).toMatchObject({ to: 'grace@example.com' })
    expect(mail!.text).toContain('Happy birthday <3')
    expect(mail!.html).toContain('Happy birthday &#60;3')
    // Held for its day.
    expect(mail!.nextAttemptAt.toISOString().slice(0, 10)).toBe(day(3))
    const [receipt] = await database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.kind, 'receipt'), eq(emailOutbox.subjectKey, orderId)))
    expect(receipt!.text).toContain('This is a gift: grace@example.com')

    // Sending it again at once is refused; later it goes now, with a new link (the old one stops working).
    const resend = (cookie: string) =>
      answerOf(
        accountGifts.action(
          routeArgs({
            db: database.db,
            path: '/account/gifts',
            cookie,
            init: { method: 'POST', body: new URLSearchParams({ giftId }) },
          }) as never,
        ),
      )
    expect((await resend(buyer.cookie)).status).toBe(429)
    expect((await resend(other.cookie)).status).toBe(404)
    await database.db
      .update(gifts)
      .set({ sentAt: new Date(Date.now() - 3_600_000) })
      .where(eq(gifts.id, giftId))
    expect((await resend(buyer.cookie)).status).toBe(200)
    const mails = await giftMails(giftId)
    expect(mails).toHaveLength(1)
    expect(mails[0]!.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now())
    const oldToken = tokenOf(mail!.text)
    const token = tokenOf(mails[0]!.text)
    expect(token).not.toBe(oldToken)

    const recipient = await createReader(database.db)
    expect((await claim(recipient.cookie, oldToken)).status).toBe(404)
    expect((await claim(undefined, token)).status).toBe(302)
    const claimed = await claim(recipient.cookie, token)
    expect(claimed.status).toBe(303)
    expect(
      await database.db.select().from(libraryItems).where(eq(libraryItems.userId, recipient.userId)),
    ).toMatchObject([{ bookId: book.id, orderId }])
    expect((await claim(recipient.cookie, token)).status).toBe(303)
    expect(await claim(other.cookie, token)).toMatchObject({
      status: 409,
      body: { error: /another library/ },
    })
    const listed = await answerOf(
      accountGifts.loader(
        routeArgs({ db: database.db, path: '/account/gifts', cookie: buyer.cookie }) as never,
      ),
    )
    expect(listed.body).toMatchObject({
      gifts: [{ id: giftId, state: 'claimed', recipientEmail: 'grace@example.com' }],
    })
  })

  test('a refund before the claim takes it back: its mail is withdrawn and its link refused', async () => {
    const buyer = await createReader(database.db)
    const giftId = await describeGift(buyer.cookie, catalogue[3]!.slug, {
      recipientEmail: 'later@example.com',
      deliverOn: day(30),
    })
    const paid = await payGift(buyer.userId, giftId)
    const orderId = (paid as { orderId: string }).orderId
    const token = tokenOf((await giftMails(giftId))[0]!.text)
    expect(await refundOrder(database.db, orderId)).toBe('refunded')
    expect(await giftMails(giftId)).toEqual([])
    const recipient = await createReader(database.db)
    expect((await claim(recipient.cookie, token)).status).toBe(404)
    const [row] = await database.db.select().from(gifts).where(eq(gifts.id, giftId))
    expect(row!.revokedAt).not.toBeNull()
    expect(
      await database.db.select().from(libraryItems).where(eq(libraryItems.userId, recipient.userId)),
    ).toEqual([])
    const [order] = await database.db.select().from(orders).where(eq(orders.id, orderId))
    expect(order!.status).toBe('refunded')
  })

  test('a bundle given: its price spread over its books, every one claimed', async () => {
    const admin = await createReader(database.db, { confirmed: true })
    await database.db.execute(sql`update "user" set role = 'admin' where id = ${admin.userId}`)
    const two = catalogue.slice(4, 6)
    const slug = `gift-pack-${Date.now() % 100000}`
    const made = await answerOf(
      adminBundles.action(
        routeArgs({
          db: database.db,
          path: '/admin/bundles',
          cookie: admin.cookie,
          init: {
            method: 'POST',
            body: new URLSearchParams({
              title: 'Gift pack',
              slug,
              price: '3.00',
              books: two.map((b) => b.slug).join('\n'),
              active: 'on',
            }),
          },
        }) as never,
      ),
    )
    expect(made.status).toBe(303)
    const buyer = await createReader(database.db)
    const giftId = await describeGift(buyer.cookie, slug, { recipientEmail: 'pack@example.com' }, 'bundles')
    const checkout = await getCheckout(database.db, buyer.userId, { giftId })
    const [bundle] = await database.db.select().from(bundles).where(eq(bundles.slug, slug))
    expect(checkout.totalCents).toBe(300)
    expect(checkout.lines.every((line) => line.bundle?.id === bundle!.id)).toBe(true)
    expect((await payGift(buyer.userId, giftId)).outcome).toBe('paid')
    const [mail] = await giftMails(giftId)
    expect(mail!.subject).toContain('Gift pack')
    const recipient = await createReader(database.db)
    expect((await claim(recipient.cookie, tokenOf(mail!.text))).status).toBe(303)
    const owned = await database.db
      .select()
      .from(libraryItems)
      .where(eq(libraryItems.userId, recipient.userId))
    expect(owned.map((row) => row.bookId).toSorted()).toEqual(two.map((b) => b.id).toSorted())
  })

  test('a refund never leaves a gifted book with the wrong reader', async () => {
    const book = catalogue[5]!
    // A buyer who bought the book for themselves, then gave it.
    const buyer = await createReader(database.db)
    const cartId = await requireUserCart(database.db, buyer.userId)
    await addToCart(database.db, cartId, book.id)
    const { idempotencyKey, attemptId } = await getCheckout(database.db, buyer.userId)
    const number = '4242424242424242'
    const own = await placeOrderWithCard(database.db, {
      userId: buyer.userId,
      idempotencyKey,
      attemptId,
      card: { number, brand: cardBrand(number), name: 'Ada', expiry: '12/34', cvc: '123' },
      provider,
      orderUrl: (id) => `http://localhost:3000/orders/${id}`,
    })
    const ownOrder = (own as { orderId: string }).orderId
    const giftId = await describeGift(buyer.cookie, book.slug, {
      recipientEmail: 'refund-friend@example.com',
    })
    const giftOrder = ((await payGift(buyer.userId, giftId)) as { orderId: string }).orderId
    const recipient = await createReader(database.db)
    expect((await claim(recipient.cookie, tokenOf((await giftMails(giftId))[0]!.text))).status).toBe(303)
    const owns = async (userId: string) =>
      (await database.db.select().from(libraryItems).where(eq(libraryItems.userId, userId))).filter(
        (row) => row.bookId === book.id,
      )

    // The gift refunded: the recipient loses it; the buyer keeps theirs, through their own order.
    expect(await refundOrder(database.db, giftOrder)).toBe('refunded')
    expect(await owns(recipient.userId)).toEqual([])
    expect(await owns(buyer.userId)).toMatchObject([{ orderId: ownOrder }])

    // Their own purchase refunded while a gift of the same book stands paid: the gift is not theirs to keep.
    const second = await describeGift(buyer.cookie, book.slug, { recipientEmail: 'other-friend@example.com' })
    expect((await payGift(buyer.userId, second)).outcome).toBe('paid')
    expect(await refundOrder(database.db, ownOrder)).toBe('refunded')
    expect(await owns(buyer.userId)).toEqual([])
  })

  test('sent again twice, each time a new mail and a new link; a paid gift is never paid twice', async () => {
    const buyer = await createReader(database.db)
    const giftId = await describeGift(buyer.cookie, catalogue[0]!.slug, {
      recipientEmail: 'twice@example.com',
      deliverOn: day(10),
    })
    const paid = (await payGift(buyer.userId, giftId)) as { outcome: string; orderId: string }
    expect(paid.outcome).toBe('paid')
    // A new attempt at its checkout finds the order made, and makes no second one.
    const again = await payGift(buyer.userId, giftId)
    expect(again).toMatchObject({ outcome: 'existing', orderId: paid.orderId })

    const tokens: string[] = []
    for (let sending = 0; sending < 2; sending++) {
      await database.db
        .update(gifts)
        .set({ sentAt: new Date(Date.now() - 3_600_000) })
        .where(eq(gifts.id, giftId))
      expect(await resendGift(database.db, giftId, buyer.userId, 'http://localhost:3000')).toBe('sent')
      const waiting = (await giftMails(giftId)).filter((mail) => mail.sentAt === null)
      expect(waiting).toHaveLength(1)
      expect(waiting[0]!.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now())
      tokens.push(tokenOf(waiting[0]!.text))
    }
    expect(new Set(tokens).size).toBe(2)
    const recipient = await createReader(database.db)
    expect((await claim(recipient.cookie, tokens[0]!)).status).toBe(404)
    expect((await claim(recipient.cookie, tokens[1]!)).status).toBe(303)
  })
})
