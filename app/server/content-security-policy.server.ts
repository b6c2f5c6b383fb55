import type { Env } from './env.server.ts'

/** Sources a page adds to some directives of the store's policy (the online reader's: its book's frames). */
export type PolicyAdditions = Partial<Record<'frame-src' | 'style-src' | 'img-src' | 'font-src', string[]>>

/**
 * The policy for a response whose inline scripts carry `scriptSources` ('nonce-…' or 'sha256-…').
 * `formTargets`: other origins a form post may lead to. Chrome applies form-action to the redirects that
 * follow a post too, so the checkout's 303 to Stripe Checkout needs its origin when Stripe is configured.
 * `additions`: what one page needs beyond every page's policy; the host sends the policy without any, and a
 * route that needs more sends its own (the online reader: app/features/reader/viewer/reader-policy.server.ts).
 */
export function contentSecurityPolicy(
  scriptSources: string[],
  development: boolean,
  formTargets: string[] = [],
  additions: PolicyAdditions = {},
): string {
  const plus = (directive: keyof PolicyAdditions) =>
    additions[directive]?.length ? ` ${additions[directive].join(' ')}` : ''
  return [
    "default-src 'self'",
    `script-src 'self' ${scriptSources.join(' ')}${development ? " 'unsafe-eval'" : ''}`,
    // Vite injects <style> tags while developing; the production build ships only stylesheet files.
    `style-src 'self'${development ? " 'unsafe-inline'" : ''}${plus('style-src')}`,
    `img-src 'self' data:${plus('img-src')}`,
    `font-src 'self'${plus('font-src')}`,
    `connect-src 'self'${development ? ' ws: wss:' : ''}`,
    ...(additions['frame-src'] ? [`frame-src 'self'${plus('frame-src')}`] : []),
    "object-src 'none'",
    "base-uri 'none'",
    ["form-action 'self'", ...formTargets].join(' '),
    "frame-ancestors 'none'",
  ].join('; ')
}

/**
 * Where a form may send the visitor: Stripe Checkout's pages when Stripe takes the payments; the sign-in
 * providers' authorization pages when they are configured (the login form's 303 goes there).
 */
export function formTargetsOf(env: Env): string[] {
  return [
    ...(env.STRIPE_SECRET_KEY ? ['https://checkout.stripe.com'] : []),
    ...(env.GITHUB_CLIENT_ID ? ['https://github.com'] : []),
    ...(env.OIDC_ISSUER ? [new URL(env.OIDC_ISSUER).origin] : []),
  ]
}
