import type { Block, Inline } from '../markdown.ts'

/** A book description parsed on the server (markdown.ts): React escapes every text, links are pre-checked. */
export function Description({ blocks }: { blocks: Block[] }) {
  return (
    <div className="flex flex-col gap-3 text-lg leading-relaxed">
      {blocks.map((block, index) => {
        if (block.type === 'heading')
          return (
            <h2 key={index} className="text-xl font-semibold">
              <Inlines inlines={block.children} />
            </h2>
          )
        if (block.type === 'list') {
          const List = block.ordered ? 'ol' : 'ul'
          return (
            <List key={index} className={`${block.ordered ? 'list-decimal' : 'list-disc'} pl-6`}>
              {block.items.map((item, itemIndex) => (
                <li key={itemIndex}>
                  <Inlines inlines={item} />
                </li>
              ))}
            </List>
          )
        }
        return (
          <p key={index}>
            <Inlines inlines={block.children} />
          </p>
        )
      })}
    </div>
  )
}

function Inlines({ inlines }: { inlines: Inline[] }) {
  return inlines.map((inline, index) => {
    switch (inline.type) {
      case 'text':
        return inline.text
      case 'code':
        return (
          <code key={index} className="rounded bg-slate-100 px-1 text-base dark:bg-slate-800">
            {inline.text}
          </code>
        )
      case 'strong':
        return (
          <strong key={index}>
            <Inlines inlines={inline.children} />
          </strong>
        )
      case 'em':
        return (
          <em key={index}>
            <Inlines inlines={inline.children} />
          </em>
        )
      case 'link':
        return (
          <a
            key={index}
            href={inline.href}
            rel="nofollow noopener"
            className="font-medium text-blue-700 underline underline-offset-4 dark:text-sky-300"
          >
            <Inlines inlines={inline.children} />
          </a>
        )
    }
  })
}
