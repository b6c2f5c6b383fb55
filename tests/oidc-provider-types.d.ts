// The few parts of oidc-provider 9 the tests use (it ships no types; @types/oidc-provider would be a second
// dependency for five lines).
declare module 'oidc-provider' {
  import type { Server } from 'node:http'

  type Claims = Record<string, unknown> & { sub: string }
  type Account = { accountId: string; claims: () => Claims | Promise<Claims> }

  export type Configuration = {
    clients: Record<string, unknown>[]
    claims?: Record<string, string[]>
    findAccount: (ctx: unknown, id: string) => Account | undefined | Promise<Account | undefined>
    cookies?: { keys: string[] }
    features?: Record<string, unknown>
    ttl?: Record<string, number>
  }

  export default class Provider {
    constructor(issuer: string, configuration: Configuration)
    listen(port: number, host: string, listening: () => void): Server
  }
}
