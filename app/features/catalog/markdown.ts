/**
 * The small Markdown a book description may use, parsed on the server into a tree of plain data that
 * components/description.tsx renders with React (so every text is escaped): paragraphs, `###` headings,
 * `-`/`*` and `1.` lists, **strong**, *emphasis*, `code`, and [links](https://…). Raw HTML is never
 * rendered: `<script>` stays visible text. Links keep only http(s), mailto and same-site paths; any other
 * target (javascript:, data:, //host) drops the link and keeps its words. No parser dependency reaches the
 * browser: the tree travels in the loader data (docs/decisions/012-admin-catalogue-and-covers.md).
 */
export type Inline =
  | { type: 'text'; text: string }
  | { type: 'code'; text: string }
  | { type: 'strong' | 'em'; children: Inline[] }
  | { type: 'link'; href: string; children: Inline[] }

export type Block =
  | { type: 'paragraph'; children: Inline[] }
  | { type: 'heading'; children: Inline[] }
  | { type: 'list'; ordered: boolean; items: Inline[][] }

const bulletItem = /^\s{0,3}[-*+]\s+(.*)$/
const orderedItem = /^\s{0,3}\d{1,9}[.)]\s+(.*)$/
const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/

export function parseMarkdown(source: string): Block[] {
  const blocks: Block[] = []
  let paragraph: string[] = []
  let list: { ordered: boolean; items: string[] } | null = null
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ type: 'paragraph', children: parseInline(paragraph.join(' ')) })
    if (list) blocks.push({ type: 'list', ordered: list.ordered, items: list.items.map(parseInline) })
    paragraph = []
    list = null
  }
  for (const line of source.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.trim() === '') {
      flush()
      continue
    }
    const title = heading.exec(line)
    if (title) {
      flush()
      blocks.push({ type: 'heading', children: parseInline(title[1]!) })
      continue
    }
    const bullet = bulletItem.exec(line)
    const numbered = bullet ? null : orderedItem.exec(line)
    const item = bullet ?? numbered
    if (item) {
      const ordered = Boolean(numbered)
      if (paragraph.length > 0 || (list && list.ordered !== ordered)) flush()
      list ??= { ordered, items: [] }
      list.items.push(item[1]!)
      continue
    }
    // A line that continues a list item belongs to it.
    if (list) {
      const items: string[] = list.items
      items[items.length - 1] += ` ${line.trim()}`
      continue
    }
    paragraph.push(line.trim())
  }
  flush()
  return blocks
}

/**
 * Where the next character of a kind stands, from a position on. A parse moves left to right, so each kind's
 * pointer only moves forward: every character is looked at a bounded number of times and parsing is linear in
 * the text's length. (Before, each position tried regular expressions on the rest of the text, and 10,000 '['
 * cost ~150 ms of a book page's render: issue 28.)
 */
function forwardFinder(text: string, isMatch: (at: number) => boolean): (from: number) => number {
  let found = -1
  return (from) => {
    if (found >= from) return found
    found = from
    while (found < text.length && !isMatch(found)) found += 1
    return found
  }
}

const isSpace = (char: string | undefined) => char === undefined || /\s/.test(char)

/** Inline spans, left to right; an opening mark without its closing one is just text. */
export function parseInline(text: string): Inline[] {
  if (!/[`*_[]/.test(text)) return text ? [{ type: 'text', text }] : []
  const out: Inline[] = []
  let plain = ''
  const pushText = () => {
    if (plain) out.push({ type: 'text', text: plain })
    plain = ''
  }
  // A closing mark ends with a non-space before it ('*a*', not '*a *'); '**' and '__' close strong text.
  const closers = new Map<string, (from: number) => number>()
  const closerOf = (mark: string) => {
    let find = closers.get(mark)
    if (!find)
      closers.set(
        mark,
        (find = forwardFinder(text, (at) => text.startsWith(mark, at) && !isSpace(text[at - 1]))),
      )
    return find
  }
  // Made on first use: most spans hold no mark at all.
  const lazily = (isMatch: (at: number) => boolean) => {
    let find: ((from: number) => number) | undefined
    return (from: number) => (find ??= forwardFinder(text, isMatch))(from)
  }
  const nextBacktick = lazily((at) => text[at] === '`')
  const nextCloseBracket = lazily((at) => text[at] === ']')
  const nextHrefEnd = lazily((at) => text[at] === ')' || isSpace(text[at]))
  const nextNonSpace = lazily((at) => !isSpace(text[at]))

  /** `code`: the span to the next backtick. */
  const code = (at: number) => {
    const end = nextBacktick(at + 1)
    return end < text.length && end > at + 1 ? { text: text.slice(at + 1, end), end: end + 1 } : null
  }
  /** **strong** / __strong__ and *em* / _em_: the text starts with a non-space and runs to the first closer. */
  const span = (at: number, mark: string) => {
    const start = at + mark.length
    if (!text.startsWith(mark, at) || isSpace(text[start])) return null
    const end = closerOf(mark)(start + 1)
    return end < text.length ? { inner: text.slice(start, end), end: end + mark.length } : null
  }
  /** [words](target): the words to the first ']', then '(' and a target without spaces, spaces allowed around. */
  const link = (at: number) => {
    const close = nextCloseBracket(at + 1)
    if (close >= text.length || close === at + 1 || text[close + 1] !== '(') return null
    const hrefStart = nextNonSpace(close + 2)
    const hrefEnd = nextHrefEnd(hrefStart)
    const end = nextNonSpace(hrefEnd)
    if (text[end] !== ')') return null
    return { words: text.slice(at + 1, close), href: text.slice(hrefStart, hrefEnd), end: end + 1 }
  }

  let index = 0
  while (index < text.length) {
    const char = text[index]!
    const codeSpan = char === '`' ? code(index) : null
    const strong = char === '*' || char === '_' ? span(index, char + char) : null
    const em = !strong && (char === '*' || char === '_') ? span(index, char) : null
    const linkSpan = char === '[' ? link(index) : null
    if (codeSpan) {
      pushText()
      out.push({ type: 'code', text: codeSpan.text })
      index = codeSpan.end
    } else if (strong ?? em) {
      const marked = (strong ?? em)!
      pushText()
      out.push({ type: strong ? 'strong' : 'em', children: parseInline(marked.inner) })
      index = marked.end
    } else if (linkSpan) {
      pushText()
      const href = safeHref(linkSpan.href)
      const children = parseInline(linkSpan.words)
      if (href) out.push({ type: 'link', href, children })
      else out.push(...children)
      index = linkSpan.end
    } else {
      plain += char
      index += 1
    }
  }
  pushText()
  return out
}

/** The link target if it is http(s), mailto or a same-site path; null for anything else. */
export function safeHref(raw: string): string | null {
  const href = raw.trim()
  if (/^\/(?![/\\])/.test(href) || /^#[\w-]*$/.test(href)) return href
  if (/[\s\\]/.test(href)) return null
  try {
    const url = new URL(href)
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : null
  } catch {
    return null
  }
}

/** The description's words without the marks: for meta descriptions and the short text on cards. */
export function plainText(source: string): string {
  const words = (inlines: Inline[]): string =>
    inlines.map((inline) => ('text' in inline ? inline.text : words(inline.children))).join('')
  return parseMarkdown(source)
    .map((block) => (block.type === 'list' ? block.items.map(words).join('; ') : words(block.children)))
    .join(' ')
}
