import type { Env } from '#app/server/env.server.ts'
import { createTestPaymentProvider, type PaymentProvider } from './payments.server.ts'
import { createStripePaymentProvider } from './stripe.server.ts'

/**
 * Stripe when both of its keys are configured, otherwise the test provider. Made once per process by
 * `createStoreServices` (app/services.server.ts), which a test may hand a provider of its own instead.
 */
export function createPaymentProvider(env: Env): PaymentProvider {
  // env.server.ts refuses one key without the other.
  return env.STRIPE_SECRET_KEY && env.STRIPE_WEBHOOK_SECRET
    ? createStripePaymentProvider({
        secretKey: env.STRIPE_SECRET_KEY,
        webhookSecret: env.STRIPE_WEBHOOK_SECRET,
      })
    : createTestPaymentProvider()
}
