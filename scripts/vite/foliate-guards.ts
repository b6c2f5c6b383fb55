import type { Plugin } from 'vite'

/**
 * foliate-js 1.0.1 (the reader's EPUB engine) lays out a section whenever the reader's box changes size. Its
 * paginator makes the next section's view current *before* that section's document has loaded, so a resize or a
 * scroll while a section loads (the search panel closing as a match is chosen, a phone turning) lays out or reads
 * a document that has no `<body>` yet and throws ("Cannot destructure property 'style' of 'e' as it is null").
 * The section's own load lays it out and reports where the reader is moments later, so the fix is to skip both
 * until then.
 *
 * Each change names the exact text it replaces: if an upgrade of foliate-js changes that text, the build fails
 * here instead of shipping the reader without the guard (scripts/vite/foliate-guards.test.ts reads the installed
 * file).
 */
export const foliateGuards: ReadonlyArray<readonly [before: string, after: string]> = [
  [
    '    render(layout) {\n        if (!layout || !this.document) return',
    '    render(layout) {\n        if (!layout || !this.document?.body) return',
  ],
  [
    '    expand() {\n        const { documentElement } = this.document',
    '    expand() {\n        if (!this.document?.body) return\n        const { documentElement } = this.document',
  ],
  // A scroll of the reader's box while the next section loads: the visible range is read from that section's
  // document, which has no body yet ("Failed to execute 'createTreeWalker' on 'Document'").
  [
    '    #afterScroll(reason) {\n        const range = this.#getVisibleRange()',
    '    #afterScroll(reason) {\n        if (!this.#view?.document?.body) return\n        const range = this.#getVisibleRange()',
  ],
]

/** foliate-js's paginator with the guards above, or an error naming the change that no longer applies. */
export function guardFoliatePaginator(source: string): string {
  return replaceExactlyOnce(source, foliateGuards)
}

/**
 * `source` with each `before` replaced by its `after`, in order; each `before` must occur exactly once (a
 * foliate-js whose text changed fails the build rather than shipping half a change).
 */
export function replaceExactlyOnce(
  source: string,
  changes: ReadonlyArray<readonly [before: string, after: string]>,
): string {
  return changes.reduce((text, [before, after]) => {
    const at = text.indexOf(before)
    if (at === -1 || text.indexOf(before, at + 1) !== -1) {
      throw new Error(`foliate-js/paginator.js changed: expected once: ${JSON.stringify(before)}`)
    }
    // A function, so that `$` in the new text is not read as a replacement pattern.
    return text.replace(before, () => after)
  }, source)
}

export function foliatePaginatorGuards(): Plugin {
  return {
    name: 'codebook:foliate-paginator-guards',
    transform: {
      filter: { id: /[\\/]foliate-js[\\/]paginator\.js$/ },
      handler: (code) => ({ code: guardFoliatePaginator(code), map: null }),
    },
  }
}
