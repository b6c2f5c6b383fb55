import { hash, verify, type Algorithm, type Options } from '@node-rs/argon2'

/**
 * Password hashing for Better Auth (`emailAndPassword.password`): Argon2id with OWASP's recommended minimum
 * (Password Storage Cheat Sheet, ASVS level 2) instead of Better Auth's default scrypt, whose N=16384, r=16
 * is below OWASP's scrypt minimum. Why and the numbers: docs/decisions/006-password-hashing.md.
 *
 * Hashes are PHC strings (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`) that carry their own parameters and
 * a random 16-byte salt, so raising the costs later leaves old hashes verifiable. Both functions run on libuv's
 * thread pool (napi-rs async tasks), never on the event loop.
 */

/** Memory cost in KiB: 19 MiB. */
export const ARGON2_MEMORY_KIB = 19_456
/** Passes over memory. */
export const ARGON2_TIME_COST = 2
/** Lanes; 1 keeps each hash on one thread so concurrent logins share the cores. */
export const ARGON2_PARALLELISM = 1

// `Algorithm` is an ambient const enum, which verbatimModuleSyntax cannot read: its Argon2id member is 2.
const ARGON2ID: Algorithm = 2

const options: Options = {
  algorithm: ARGON2ID,
  memoryCost: ARGON2_MEMORY_KIB,
  timeCost: ARGON2_TIME_COST,
  parallelism: ARGON2_PARALLELISM,
}

// NFKC, as Better Auth's scrypt does: the same password typed with composed or decomposed characters
// (macOS vs Windows keyboards, pasted text) must verify.
function normalize(password: string) {
  return password.normalize('NFKC')
}

export function hashPassword(password: string): Promise<string> {
  return hash(normalize(password), options)
}

/** Rejects when `hash` is not an Argon2 PHC string (a corrupt row is an error, not a wrong password). */
export function verifyPassword({ hash, password }: { hash: string; password: string }): Promise<boolean> {
  return verify(hash, normalize(password))
}
