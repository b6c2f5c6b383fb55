import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

const SECRET_FILE = 'auth-secret'

/**
 * BETTER_AUTH_SECRET when set; otherwise a secret generated on first run and kept in DATA_DIR, so a fresh
 * clone starts with nothing to configure and sessions survive restarts. (Production with a real database
 * must set the variable: env.server.ts refuses to start without it.)
 */
export function resolveAuthSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured
  const file = path.join(dataDir, SECRET_FILE)
  try {
    const existing = fs.readFileSync(file, 'utf8').trim()
    if (existing.length >= 32) return existing
  } catch {
    // Not there yet: generated below.
  }
  fs.mkdirSync(dataDir, { recursive: true })
  const secret = crypto.randomBytes(32).toString('base64url')
  fs.writeFileSync(file, `${secret}\n`, { mode: 0o600 })
  return secret
}
