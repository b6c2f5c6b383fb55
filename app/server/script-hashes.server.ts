import crypto from 'node:crypto'

/**
 * The 'sha256-…' sources, as CSP Level 2 hashes them, of the inline scripts of `html` that carry `nonce`: the
 * scripts the store wrote for this response (React Router's and ours all get the response's nonce). A script
 * without it, or with another, is left out: it did not come from the render, and only a nonce it could not
 * know would have let it run.
 */
export function nonceScriptHashes(html: string, nonce: string): string[] {
  if (nonce.length === 0) return []
  const hashes = new Set<string>()
  for (const [, attributes = '', body = ''] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    if (!attributes.includes(` nonce="${nonce}"`) || /\bsrc\s*=/i.test(attributes)) continue
    hashes.add(`'sha256-${crypto.createHash('sha256').update(body).digest('base64')}'`)
  }
  return [...hashes]
}
