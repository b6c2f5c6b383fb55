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

/** Inline spans, left to right; an opening mark without its closing one is just text. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = []
  let plain = ''
  const pushText = () => {
    if (plain) out.push({ type: 'text', text: plain })
    plain = ''
  }
  let index = 0
  while (index < text.length) {
    const rest = text.slice(index)
    const code = /^`([^`]+)`/.exec(rest)
    const strong = code ? null : /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/.exec(rest)
    const em = code || strong ? null : /^([*_])(?=\S)([\s\S]*?\S)\1/.exec(rest)
    const link = code || strong || em ? null : /^\[([^\]]+)\]\(\s*([^)\s]*)\s*\)/.exec(rest)
    if (code) {
      pushText()
      out.push({ type: 'code', text: code[1]! })
      index += code[0].length
    } else if (strong) {
      pushText()
      out.push({ type: 'strong', children: parseInline(strong[2]!) })
      index += strong[0].length
    } else if (em) {
      pushText()
      out.push({ type: 'em', children: parseInline(em[2]!) })
      index += em[0].length
    } else if (link) {
      pushText()
      const href = safeHref(link[2]!)
      const children = parseInline(link[1]!)
      if (href) out.push({ type: 'link', href, children })
      else out.push(...children)
      index += link[0].length
    } else {
      plain += text[index]
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
