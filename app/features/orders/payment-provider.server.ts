import type { Env } from '#app/server/env.server.ts'
import { createTestPaymentProvider, type PaymentProvider } from './payments.server.ts'
import { createStripePaymentProvider } from './stripe.server.ts'

const providers = new WeakMap<Env, PaymentProvider>()

/** Stripe when both of its keys are configured, otherwise the test provider. One per configuration. */
export function paymentProviderFor(env: Env): PaymentProvider {
  let provider = providers.get(env)
  if (!provider) {
    // env.server.ts refuses one key without the other.
    provider =
      env.STRIPE_SECRET_KEY && env.STRIPE_WEBHOOK_SECRET
        ? createStripePaymentProvider({
            secretKey: env.STRIPE_SECRET_KEY,
            webhookSecret: env.STRIPE_WEBHOOK_SECRET,
          })
        : createTestPaymentProvider()
    providers.set(env, provider)
  }
  return provider
}
