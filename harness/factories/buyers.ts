import crypto from 'node:crypto'
import { eq } from 'drizzle-orm'
import { addToCart, requireUserCart } from '#app/features/cart/cart.server.ts'
import { cardBrand } from '#app/features/orders/card.ts'
import { placeOrderWithCard } from '#app/features/orders/card-checkout.server.ts'
import { getCheckout } from '#app/features/orders/checkout-summary.server.ts'
import { getOrderForUser } from '#app/features/orders/order-history.server.ts'
import { createTestPaymentProvider } from '#app/features/orders/payments.server.ts'
import type { BuyerTax } from '#app/features/tax/checkout-tax.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { user } from '#app/server/db/schema/index.server.ts'
import { cookieHeader } from '#harness/cookie-jar.ts'
import { servicesFor } from '#harness/services.ts'

export const testPassword = 'correct horse battery staple'

/**
 * A registered reader, signed in: their session cookie, id and email. `confirmed`: they followed the link
 * mailed at registration (an admin must have, decision 011).
 */
export async function createReader(db: Db, overrides: { email?: string; confirmed?: boolean } = {}) {
  const email = overrides.email ?? `reader-${crypto.randomUUID()}@example.com`
  const signedUp = await servicesFor(db).auth.api.signUpEmail({
    body: { email, password: testPassword, name: email },
    returnHeaders: true,
  })
  const userId = signedUp.response.user.id
  if (overrides.confirmed) await db.update(user).set({ emailVerified: true }).where(eq(user.id, userId))
  const cookie = cookieHeader(signedUp.headers)
  return { cookie, userId, email }
}

/**
 * A reader who bought `bookIds` with the test provider's good card: the books are in their library. `buyer`:
 * where they are (features/tax), so the order is taxed for that country (none given: untaxed, no billing
 * country, as orders made before tax was recorded).
 */
export async function createBuyer(
  db: Db,
  bookIds: string[],
  overrides: { email?: string; buyer?: BuyerTax } = {},
) {
  const reader = await createReader(db, overrides)
  const cartId = await requireUserCart(db, reader.userId)
  for (const bookId of bookIds) await addToCart(db, cartId, bookId)
  const { idempotencyKey } = await getCheckout(db, reader.userId, { buyer: overrides.buyer })
  const number = '4242424242424242'
  const placed = await placeOrderWithCard(db, {
    userId: reader.userId,
    idempotencyKey,
    card: { number, brand: cardBrand(number), name: 'Ada Reader', expiry: '12/34', cvc: '123' },
    provider: createTestPaymentProvider(),
    buyer: overrides.buyer,
    orderUrl: (orderId) => `http://localhost:3000/orders/${orderId}`,
  })
  if (placed.outcome !== 'paid') throw new Error(`the purchase did not go through: ${placed.outcome}`)
  const order = (await getOrderForUser(db, reader.userId, placed.orderId))!
  return { ...reader, orderId: order.id, orderNumber: order.number }
}

/** A guest (Better Auth's anonymous user), signed in: their session cookie. */
export async function createGuestCookie(db: Db): Promise<string> {
  const signedIn = await servicesFor(db).auth.api.signInAnonymous({ returnHeaders: true })
  return cookieHeader(signedIn.headers)
}
