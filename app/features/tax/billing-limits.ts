/**
 * The longest name, and address (and its most lines), an invoice is made out to: checked on the checkout's post
 * (checkout-buyer.server.ts) and given to its fields (components/billing-fields.tsx). Browser-safe.
 */
export const BILLING_LIMITS = { name: 200, address: 500, addressLines: 6 } as const
