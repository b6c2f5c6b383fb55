import path from 'node:path'
import { z } from 'zod'
import { parseStorageUrl } from './storage-url.ts'

const LogLevelSchema = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])

const knownCurrencies = new Set(Intl.supportedValuesOf('currency'))

/** An ISO 4217 code whose amounts have cents (two decimals): prices are stored as whole cents. */
function isCurrencyWithCents(code: string): boolean {
  if (!/^[A-Z]{3}$/.test(code) || !knownCurrencies.has(code)) return false
  const format = new Intl.NumberFormat('en', { style: 'currency', currency: code })
  return format.resolvedOptions().maximumFractionDigits === 2
}

/**
 * Express's `trust proxy` setting: `false` (default, use the socket address), a number of hops, or a
 * comma-separated list of addresses/subnets ('loopback', '10.0.0.0/8'). Not `true`: see below.
 */
const TrustProxySchema = z
  .string()
  .trim()
  .transform((value, ctx): false | number | string[] => {
    if (value === '' || value === 'false') return false
    if (value === 'true') {
      // Express would then take the left-most X-Forwarded-For entry, which the client writes itself: anyone
      // could pick their own address and walk past every per-IP rate limit.
      ctx.addIssue({
        code: 'custom',
        message:
          "'true' would believe any client's X-Forwarded-For; give the number of proxies in front (1) or their addresses",
      })
      return z.NEVER
    }
    if (/^\d+$/.test(value)) return Number(value)
    const entries = value.split(',').map((entry) => entry.trim())
    if (entries.some((entry) => !/^[\w.:/]+$/.test(entry))) {
      ctx.addIssue({
        code: 'custom',
        message: "expected 'false', a number of hops or a comma-separated list of addresses",
      })
      return z.NEVER
    }
    return entries
  })

export const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  PORT: z.coerce
    .number({ error: 'expected a port number' })
    .int('expected a whole number')
    .min(0)
    .max(65535, 'expected a port number up to 65535')
    .default(3000),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .trim()
    .regex(/^postgres(ql)?:\/\/\S+$/, 'expected a postgres:// URL (leave unset for the embedded database)')
    .optional(),
  DATA_DIR: z
    .string()
    .trim()
    .min(1)
    .default('./data')
    .transform((dir) => path.resolve(dir)),
  BETTER_AUTH_SECRET: z.string().min(32, 'expected at least 32 characters').optional(),
  BETTER_AUTH_URL: z.url({ error: 'expected an absolute http(s) URL' }).optional(),
  TRUST_PROXY: TrustProxySchema.default(false),
  LOG_LEVEL: LogLevelSchema.default('info'),
  /** smtp(s)://user:pass@host:port — unset: mail is written as .eml files to DATA_DIR/outbox. */
  SMTP_URL: z
    .string()
    .trim()
    .regex(/^smtps?:\/\/\S+$/, 'expected an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().trim().min(3).default('CodeBook <orders@codebook.localhost>'),
  /**
   * The largest file the store mails (Send to Kindle), in MB. Base64 makes a message a third larger than its
   * files: 20 MB keeps it within the 25–35 MB most mail servers take (Amazon's Kindle service takes 50 MB).
   */
  MAIL_MAX_ATTACHMENT_MB: z.coerce
    .number({ error: 'expected a number of megabytes' })
    .positive('expected more than 0 MB')
    .max(50, "expected at most 50 MB: Amazon's limit for a document mailed to a Kindle")
    .default(20),
  /**
   * Where files live (issue 32): unset, the folder DATA_DIR/files; `s3://bucket[/prefix]`, an S3-compatible
   * bucket (AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY as the AWS SDK reads them; S3_ENDPOINT for R2,
   * MinIO, B2 or Ceph; S3_VIRTUAL_HOSTED=1 for bucket.host addressing there). Every instance must name the same.
   */
  STORAGE_URL: z
    .string()
    .trim()
    .refine((value) => {
      try {
        parseStorageUrl(value)
        return true
      } catch {
        return false
      }
    }, 'expected s3://bucket or s3://bucket/prefix (lower-case letters, digits, . - _ /)')
    .optional(),
  S3_ENDPOINT: z
    .url({
      error: "expected the object store's http(s) URL, e.g. https://<account>.r2.cloudflarestorage.com",
    })
    .optional(),
  S3_VIRTUAL_HOSTED: z
    .enum(['0', '1'], { error: "expected '1' (bucket.host) or '0' (host/bucket)" })
    .default('0'),
  AWS_REGION: z.string().trim().min(1).default('us-east-1'),
  /**
   * How a buyer's copy leaves the store once the download is allowed and counted (decision 034): `stream`d by
   * the store (the default, and the only way from the folder), or a 302 `redirect` to a URL of the bucket
   * signed for DOWNLOAD_URL_SECONDS, which the object store then serves (needs STORAGE_URL).
   */
  DOWNLOAD_DELIVERY: z
    .enum(['stream', 'redirect'], { error: "expected 'stream' or 'redirect'" })
    .default('stream'),
  DOWNLOAD_URL_SECONDS: z.coerce
    .number({ error: 'expected a number of seconds' })
    .int('expected a whole number of seconds')
    .min(10, 'expected at least 10 seconds: the browser must reach the object store in time')
    .max(3600, 'expected at most 3600 seconds: the link can be passed on while it lives')
    .default(60),
  /** Comma-separated emails: these accounts are made admins (the back office, /admin) at start-up. */
  ADMIN_EMAILS: z
    .string()
    .trim()
    .transform((value) =>
      [...new Set(value.split(',').map((email) => email.trim().toLowerCase()))].filter(Boolean),
    )
    .pipe(z.array(z.email({ error: 'expected comma-separated email addresses' })))
    .default([]),
  /**
   * How long a signed-in visitor's session may be answered from memory before it is read again (decision
   * 021): another instance's sign-out or revocation is seen within this time (this instance's at once). 0: off.
   */
  SESSION_CACHE_SECONDS: z.coerce
    .number({ error: 'expected a number of seconds' })
    .min(0, 'expected 0 (off) to 30 seconds')
    .max(30, 'expected at most 30 seconds: a revoked session must stop working within that')
    .default(5),
  /** How many rendered documents are remembered by their URL and data (decision 021). 0: render every time. */
  RENDER_MEMO_ENTRIES: z.coerce
    .number({ error: 'expected a number of pages' })
    .int('expected a whole number')
    .min(0)
    .max(100_000)
    .default(500),
  /** Raw analytics events older than this are deleted (their daily aggregates stay). */
  ANALYTICS_RETENTION_DAYS: z.coerce
    .number({ error: 'expected a number of days' })
    .int('expected a whole number of days')
    .min(1, 'expected at least 1 day')
    .max(3650, 'expected at most 3650 days')
    .default(400),
  /** Set: Prometheus metrics at /metrics for `Authorization: Bearer <token>`; unset: /metrics is a 404. */
  METRICS_TOKEN: z.string().trim().min(32, 'expected at least 32 characters').optional(),
  /** Both set: payments go through Stripe Checkout; neither: the built-in test provider. */
  STRIPE_SECRET_KEY: z
    .string()
    .trim()
    .regex(/^(sk|rk)_\S+$/, 'expected a Stripe secret key (sk_…)')
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .trim()
    .regex(/^whsec_\S+$/, 'expected a webhook signing secret (whsec_…)')
    .optional(),
  /**
   * The EU's VIES REST API, where business buyers' VAT numbers are checked (features/tax, decision 036); tests
   * point it at a double of recorded answers.
   */
  VIES_URL: z
    .url({ error: 'expected the VIES REST API URL (https://…)' })
    .default('https://ec.europa.eu/taxation_customs/vies/rest-api'),
  /**
   * The currencies buyers may pay in (issue 31, decision 040), comma-separated, the store's base currency first:
   * `USD,EUR,GBP`. A book's own price is in its own currency (the base, as the back office creates it); the
   * others are optional prices per book. Only currencies with cents (not JPY): prices are kept in cents.
   */
  STORE_CURRENCIES: z
    .string()
    .trim()
    .transform((value) => [...new Set(value.split(',').map((code) => code.trim().toUpperCase()))])
    .pipe(
      z
        .array(
          z
            .string()
            .refine(isCurrencyWithCents, 'expected comma-separated ISO 4217 codes with cents, like USD,EUR'),
        )
        .min(1),
    )
    .default(['USD']),
  /** Both set: 'Sign in with GitHub' (an OAuth app whose callback is <public URL>/api/auth/callback/github). */
  GITHUB_CLIENT_ID: z.string().trim().min(1).optional(),
  GITHUB_CLIENT_SECRET: z.string().trim().min(1).optional(),
  /** All three set: sign in with this OpenID Connect provider (callback <public URL>/api/auth/callback/oidc). */
  OIDC_ISSUER: z.url({ error: 'expected the issuer URL (https://…)' }).optional(),
  OIDC_CLIENT_ID: z.string().trim().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().trim().min(1).optional(),
  /** The name on the OpenID Connect button ('Sign in with …'). */
  OIDC_NAME: z.string().trim().min(1).max(40).default('OpenID Connect'),
})

export type Env = z.infer<typeof EnvSchema> & {
  /** The public origin of the store (BETTER_AUTH_URL, or http://localhost:PORT). */
  publicUrl: URL
}

export class InvalidEnvError extends Error {
  override name = 'InvalidEnvError'
}

/** Parses the environment once; a bad value throws an error naming each offending variable. */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  // An empty variable means "not set", as a shell user would expect from `FOO= npm start`.
  const defined = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ''))
  const result = EnvSchema.safeParse(defined)
  if (!result.success) {
    const lines = result.error.issues.map((issue) => {
      const name = issue.path.join('.')
      const value = source[name]
      return `  ${name}: ${issue.message}${value === undefined ? '' : ` (got ${JSON.stringify(shorten(name, value))})`}`
    })
    throw new InvalidEnvError(`Invalid configuration:\n${lines.join('\n')}`)
  }
  const env = result.data
  if (env.NODE_ENV === 'production' && env.DATABASE_URL && !env.BETTER_AUTH_SECRET) {
    throw new InvalidEnvError(
      'Invalid configuration:\n  BETTER_AUTH_SECRET: required in production with DATABASE_URL, so that every instance signs sessions with the same secret',
    )
  }
  if (env.DOWNLOAD_DELIVERY === 'redirect' && !env.STORAGE_URL) {
    throw new InvalidEnvError(
      'Invalid configuration:\n  DOWNLOAD_DELIVERY: redirect needs STORAGE_URL (an object store to redirect to); the folder streams',
    )
  }
  if (Boolean(env.STRIPE_SECRET_KEY) !== Boolean(env.STRIPE_WEBHOOK_SECRET)) {
    throw new InvalidEnvError(
      'Invalid configuration:\n  STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET: set both to take payments with Stripe, or neither for test mode',
    )
  }
  if (Boolean(env.GITHUB_CLIENT_ID) !== Boolean(env.GITHUB_CLIENT_SECRET)) {
    throw new InvalidEnvError(
      'Invalid configuration:\n  GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET: set both to offer sign-in with GitHub, or neither',
    )
  }
  const oidcSet = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET].filter(Boolean).length
  if (oidcSet !== 0 && oidcSet !== 3) {
    throw new InvalidEnvError(
      'Invalid configuration:\n  OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET: set all three to offer sign-in with an OpenID Connect provider, or none',
    )
  }
  const publicUrl = new URL(env.BETTER_AUTH_URL ?? `http://localhost:${env.PORT}`)
  return { ...env, publicUrl }
}

/** Never print a secret back, even when it is the value being rejected. */
function shorten(name: string, value: string) {
  return name.includes('SECRET') || name === 'DATABASE_URL' || name === 'SMTP_URL'
    ? '***'
    : value.length > 80
      ? `${value.slice(0, 77)}...`
      : value
}
