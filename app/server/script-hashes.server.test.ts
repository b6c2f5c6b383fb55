import crypto from 'node:crypto'
import { expect, test } from 'vitest'
import { nonceScriptHashes } from './script-hashes.server.ts'

const source = (body: string) => `'sha256-${crypto.createHash('sha256').update(body).digest('base64')}'`

test('only the inline scripts that carry this response’s nonce are hashed (issue 28)', () => {
  const html = [
    '<head><script nonce="n0nce">window.__own = 1</script>',
    '<script type="module" async="" nonce="n0nce">import "/assets/entry.js"</script>',
    '<script type="application/ld+json">{"@type":"Book"}</script></head>',
    // What an injection would look like: no nonce, or a guessed one.
    '<body><p><script>alert(document.cookie)</script></p>',
    '<script nonce="guess">alert(1)</script>',
    '<script nonce="n0nce" src="/assets/x.js"></script></body>',
  ].join('')
  expect(nonceScriptHashes(html, 'n0nce')).toEqual([
    source('window.__own = 1'),
    source('import "/assets/entry.js"'),
  ])
  expect(nonceScriptHashes(html, '')).toEqual([])
})
