import type { RouterContextProvider } from 'react-router'
import { contentSecurityPolicy, formTargetsOf } from '#app/server/content-security-policy.server.ts'
import { getAppContext, cspNonceContext } from '#app/server/context.server.ts'

/**
 * foliate-js's paginator styles its own shadow root with one `<style>` (foliate-js 1.0.1, paginator.js):
 * allowed by its hash, as the page's inline scripts are. A new foliate-js may change it:
 * reader-policy.server.test.ts recomputes it from the installed package.
 */
export const PAGINATOR_STYLE_HASH = "'sha256-Sz1WKGLvM24279JLTqw+ZwzznUautFgg7stEu8sEF84='"

/**
 * The paginator adds two `<style>` elements to every section it shows, for styles we never hand it (ours are
 * constructed stylesheets, which the policy does not govern): empty, and allowed as such.
 */
export const EMPTY_STYLE_HASH = "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"

/**
 * The online reader's policy: the store's, plus what foliate-js needs to show a book, and nothing else.
 * It shows each section of the EPUB in an iframe loaded from a `blob:` URL, whose document inherits this
 * policy; the section's stylesheet and images are `blob:` URLs too. `blob:` URLs are made only by this page's
 * own scripts (they cannot name another site), and scripts stay as strict as on every page: a script inside
 * a book never runs (no nonce), which is what foliate-js's README asks of its host.
 */
export function readerContentSecurityPolicy(context: Readonly<RouterContextProvider>): string {
  const { env } = getAppContext(context)
  return contentSecurityPolicy(
    [`'nonce-${context.get(cspNonceContext)}'`],
    import.meta.env.DEV,
    formTargetsOf(env),
    {
      'frame-src': ['blob:'],
      'style-src': ['blob:', PAGINATOR_STYLE_HASH, EMPTY_STYLE_HASH],
      'img-src': ['blob:'],
    },
  )
}
