import type { Plugin } from 'vite'
import { replaceExactlyOnce } from './foliate-guards.ts'

/**
 * A page turn into the next (or previous) section of a book, at the moment of the turn, in foliate-js 1.0.1:
 * its paginator shows one section at a time, in a frame it creates on demand, so the turn builds the section's
 * document, loads it in the frame, styles and lays it out in columns before the page can be painted (267 ms on
 * a phone, against 26 ms for a turn within a section: decision 037).
 *
 * With these changes the paginator lays out the section the reader is heading for ahead of time, in a second,
 * hidden view (the same `View` foliate-js uses, in the same box, `visibility: hidden` and `inert`), once the
 * reader has stayed on a page for a moment and the page is idle; a turn into that section shows it. The view it
 * leaves is kept hidden as the section behind, so turning back is as quick; any other is dropped (with its
 * section's resources) once it is not next to the section on screen, or no longer laid out for the reader's box.
 *
 * What the paginator does when it shows a section is kept, in the same order, when it shows a hidden one:
 * - the section's `load` event (its styles, our listing buttons and keys, foliate-js's links and touch handling)
 *   goes out as the hidden view loads, before it is laid out, so it is laid out as it will be seen;
 * - the view is laid out again when the reader's box or flow changed since, and its pages counted again
 *   (`expand`) in case the text size changed while it was hidden;
 * - its overlayer (highlights, search matches) is made when it is shown, as for a section loaded then, so that
 *   highlights and search results added or removed meanwhile are drawn as they are now;
 * - the place is reported (`relocate`) from the shown section, as before.
 * A section not laid out ahead (the reader jumped, or turned faster than a section loads) loads as before; one
 * still loading when the turn comes is waited for rather than loaded twice.
 *
 * A turn from a section's last page also goes straight to the next section instead of first scrolling to the
 * blank page foliate-js keeps after the last one (and reporting that as a place), unless the paginator animates
 * its turns; the same going back.
 *
 * Each change names the exact text it replaces (scripts/vite/foliate-preload.test.ts reads the installed file):
 * an upgrade of foliate-js that changes that text fails the build.
 */
export const foliatePreload: ReadonlyArray<readonly [before: string, after: string]> = [
  // How long a reader stays on a page (after foliate-js's 100 ms pause after a turn) before the next section is
  // laid out (ms): a held key, which turns a page every ~130 ms, does not lay out the sections it skips past, and
  // its layout's long tasks do not land on the next turns.
  [
    '// NOTE: everything here assumes the so-called "negative scroll type" for RTL\n',
    `const PRELOAD_AFTER_MS = 150
const sameLayout = (a, b) => a === b || (a != null && b != null
    && ['flow', 'width', 'height', 'margin', 'gap', 'columnWidth'].every(key => a[key] === b[key]))

// NOTE: everything here assumes the so-called "negative scroll type" for RTL
`,
  ],
  [
    '    #lastVisibleRange\n    constructor() {',
    `    #lastVisibleRange
    // sections laid out ahead, by index: { index, view, ready, info, layout, styles, loaded, discarded }
    #preloaded = new Map()
    #preloadDirection = 1
    #preloadToken = null
    #lastLayout = null
    #goingTo = 0
    constructor() {`,
  ],
  // The layout the section on screen was last given: a hidden view laid out with it needs no new layout.
  [
    '            return { flow, margin, gap, columnWidth }',
    '            return this.#lastLayout = { flow, margin, gap, columnWidth }',
  ],
  [
    '        return { height, width, margin, gap, columnWidth }',
    '        return this.#lastLayout = { height, width, margin, gap, columnWidth }',
  ],
  [
    `        this.#view.render(this.#beforeRender({
            vertical: this.#vertical,
            rtl: this.#rtl,
        }))
        this.#scrollToAnchor(this.#anchor)`,
    `        this.#view.render(this.#beforeRender({
            vertical: this.#vertical,
            rtl: this.#rtl,
        }))
        this.#scrollToAnchor(this.#anchor)
        this.#schedulePreload()`,
  ],
  [
    `    async #goTo({ index, anchor, select }) {
        if (index === this.#index) await this.#display({ index, anchor, select })`,
    `    async #goTo(target) {
        this.#goingTo++
        try {
            const entry = target.index === this.#index ? null : this.#preloaded.get(target.index)
            if (entry) {
                if (await entry.ready && this.#preloaded.get(target.index) === entry
                    && this.#goingTo === 1 && !this.scrolled)
                    return await this.#showPreloaded(entry, target)
                this.#discardPreloaded(entry)
            }
            return await this.#goToLoading(target)
        } finally {
            this.#goingTo--
            this.#schedulePreload()
        }
    }
    #schedulePreload() {
        const token = this.#preloadToken = {}
        // once the page is idle, or half a second later at most (an idle callback can wait much longer)
        const idle = globalThis.requestIdleCallback ?? (callback => setTimeout(callback, 1))
        setTimeout(() => idle(() => {
            if (this.#preloadToken === token) this.#preloadAdjacent()
        }, { timeout: 500 }), PRELOAD_AFTER_MS)
    }
    #preloadAdjacent() {
        if (this.#locked || this.#goingTo || !this.#view?.document?.body) return
        const previous = this.#adjacentIndex(-1)
        const next = this.#adjacentIndex(1)
        for (const entry of [...this.#preloaded.values()])
            if (this.scrolled || (entry.index !== previous && entry.index !== next)
                || (entry.layout && !sameLayout(entry.layout, this.#lastLayout)))
                this.#discardPreloaded(entry)
        const index = this.#preloadDirection < 0 ? previous : next
        if (this.scrolled || index == null || this.#preloaded.has(index)) return
        const view = new View({ container: this, onExpand: () => {} })
        this.#hideView(view)
        this.#container.append(view.element)
        const entry = {
            index, view, info: null, layout: null, styles: this.#styles,
            loaded: false, discarded: false,
        }
        this.#preloaded.set(index, entry)
        entry.ready = (async () => {
            const src = await this.sections[index]?.load?.()
            if (src && entry.discarded) this.sections[index].unload?.()
            entry.loaded = Boolean(src)
            if (!src || entry.discarded) return false
            const afterLoad = doc => {
                if (doc.head) {
                    const $styleBefore = doc.createElement('style')
                    doc.head.prepend($styleBefore)
                    const $style = doc.createElement('style')
                    doc.head.append($style)
                    this.#styleMap.set(doc, [$styleBefore, $style])
                    if (Array.isArray(entry.styles))
                        [$styleBefore.textContent, $style.textContent] = entry.styles
                    else if (entry.styles != null) $style.textContent = entry.styles
                }
                this.dispatchEvent(new CustomEvent('load', { detail: { doc, index } }))
            }
            const beforeRender = info => {
                entry.info = info
                return entry.layout = info.vertical === this.#vertical && info.rtl === this.#rtl
                    ? this.#lastLayout : null
            }
            await view.load(src, afterLoad, beforeRender)
            return !entry.discarded
        })().catch(error => {
            console.warn(error)
            console.warn(new Error(\`Failed to preload section \${index}\`))
            return false
        })
    }
    async #showPreloaded(entry, { anchor, select }) {
        const { index, view } = entry
        this.#preloaded.delete(index)
        const hasFocus = this.#view?.document?.hasFocus()
        const old = this.#view
        const oldIndex = this.#index
        // the same writing mode and background as the section left: the layout, background and margins in
        // place are the ones this section needs
        const info = entry.info
        const layoutInPlace = old && info && this.#lastLayout && info.vertical === this.#vertical
            && info.rtl === this.#rtl && info.background === old.docBackground ? this.#lastLayout : null
        if (old?.document?.body) {
            old.onExpand = () => {}
            this.#hideView(old)
            this.#preloaded.set(oldIndex, {
                index: oldIndex, view: old, ready: Promise.resolve(true),
                info: { vertical: this.#vertical, rtl: this.#rtl, background: old.docBackground },
                layout: this.#lastLayout, styles: this.#styles, loaded: true, discarded: false,
            })
        } else if (old) {
            old.destroy()
            old.element.remove()
            this.sections[oldIndex]?.unload?.()
        }
        this.#index = index
        this.#view = view
        this.#showView(view)
        const layout = layoutInPlace ?? this.#beforeRender(info)
        if (!sameLayout(layout, entry.layout)) view.render(layout)
        if (entry.styles !== this.#styles) this.setStyles(this.#styles)
        view.overlayer?.element.remove()
        this.dispatchEvent(new CustomEvent('create-overlayer', {
            detail: {
                doc: view.document, index,
                attach: overlayer => view.overlayer = overlayer,
            },
        }))
        // counts its pages again (the text size may have changed while it was hidden) and places the overlayer
        view.expand()
        view.onExpand = () => this.#scrollToAnchor(this.#anchor)
        await this.scrollToAnchor((typeof anchor === 'function'
            ? anchor(view.document) : anchor) ?? 0, select)
        if (hasFocus) this.focusView()
    }
    #hideView(view) {
        this.#container.style.position = 'relative'
        Object.assign(view.element.style, {
            position: 'absolute', top: '0', left: '0', visibility: 'hidden',
        })
        view.element.inert = true
    }
    #showView(view) {
        Object.assign(view.element.style, { position: 'relative', top: '', left: '', visibility: '' })
        view.element.inert = false
    }
    #discardPreloaded(entry) {
        if (entry.discarded) return
        entry.discarded = true
        if (this.#preloaded.get(entry.index) === entry) this.#preloaded.delete(entry.index)
        if (entry.view.document?.body) entry.view.destroy()
        entry.view.element.remove()
        if (entry.loaded) this.sections[entry.index]?.unload?.()
    }
    async #goToLoading({ index, anchor, select }) {
        if (index === this.#index) await this.#display({ index, anchor, select })`,
  ],
  // Straight from a section's last page to the next section, and from its first page to the previous one.
  [
    `        const page = this.page - 1
        return this.#scrollToPage(page, 'page', true).then(() => page <= 0)`,
    `        const page = this.page - 1
        if (page <= 0 && !this.hasAttribute('animated')) return true
        return this.#scrollToPage(page, 'page', true).then(() => page <= 0)`,
  ],
  [
    `        const pages = this.pages
        return this.#scrollToPage(page, 'page', true).then(() => page >= pages - 1)`,
    `        const pages = this.pages
        if (page >= pages - 1 && !this.hasAttribute('animated')) return true
        return this.#scrollToPage(page, 'page', true).then(() => page >= pages - 1)`,
  ],
  // A swipe past a section's first or last page says which way the reader is going, as a turn does.
  [
    `            const dir = page <= 0 ? -1 : page >= pages - 1 ? 1 : null
            if (dir) return this.#goTo({`,
    `            const dir = page <= 0 ? -1 : page >= pages - 1 ? 1 : null
            if (dir) this.#preloadDirection = dir
            if (dir) return this.#goTo({`,
  ],
  // A turn says which way the reader is going (the section to lay out next); while it lasts, nothing is laid out.
  [
    `        if (this.#locked) return
        this.#locked = true
        const prev = dir === -1`,
    `        if (this.#locked) return
        this.#locked = true
        this.#preloadDirection = dir
        this.#preloadToken = null
        const prev = dir === -1`,
  ],
  [
    `        if (shouldGo || !this.hasAttribute('animated')) await wait(100)
        this.#locked = false`,
    `        if (shouldGo || !this.hasAttribute('animated')) await wait(100)
        this.#locked = false
        this.#schedulePreload()`,
  ],
  [
    `    destroy() {
        this.#observer.unobserve(this)`,
    `    destroy() {
        this.#preloadToken = null
        for (const entry of [...this.#preloaded.values()]) this.#discardPreloaded(entry)
        this.#observer.unobserve(this)`,
  ],
]

/** foliate-js's paginator laying out the next section ahead, or an error naming the change that no longer applies. */
export function preloadFoliateSections(source: string): string {
  return replaceExactlyOnce(source, foliatePreload)
}

export function foliatePaginatorPreload(): Plugin {
  return {
    name: 'codebook:foliate-paginator-preload',
    transform: {
      filter: { id: /[\\/]foliate-js[\\/]paginator\.js$/ },
      handler: (code) => ({ code: preloadFoliateSections(code), map: null }),
    },
  }
}
