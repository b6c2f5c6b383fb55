import type { Env } from '#app/server/env.server.ts'
import { createTestPaymentProvider, type PaymentProvider } from './payments.server.ts'

const providers = new WeakMap<Env, PaymentProvider>()

/** Stripe when both of its keys are configured, otherwise the test provider. One per configuration. */
export function paymentProviderFor(env: Env): PaymentProvider {
  let provider = providers.get(env)
  if (!provider) {
    provider = createTestPaymentProvider()
    providers.set(env, provider)
  }
  return provider
}
