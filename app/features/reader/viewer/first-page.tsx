import type { FirstPage, FirstPageSpan } from '#app/features/reader/first-page.ts'
import type { ReaderTheme } from './section-styles.ts'

/**
 * Not in React's types: the attribute that makes the browser time the paint of an element's own text (Element
 * Timing), on each block: `npm run bench:reader` reads the first.
 */
const elementTiming = { elementtiming: 'reader-first-page' }

function Spans({ spans }: { spans: FirstPageSpan[] }) {
  return spans.map((span, index) => (span.code ? <code key={index}>{span.text}</code> : span.text))
}

/**
 * The book's first screen, rendered by the server from the chapter's text (decision 041) where foliate-js's
 * page will be, laid out and styled as that page (first-page.css): readable before any script, replaced by
 * foliate-js's own page once it has laid it out. Real text for everyone: headings, paragraphs, lists and
 * listings as the EPUB has them. `theme` and `fontSize`: the reader's own, once the browser knows them (the
 * server follows the store's theme and the book's size).
 */
export function BookFirstPage({
  page,
  theme,
  fontSize,
}: {
  page: FirstPage
  theme?: ReaderTheme
  fontSize?: number
}) {
  return (
    <div
      className="first-page"
      data-reader-theme={theme}
      data-font-size={fontSize}
      role="region"
      aria-label="Where the book opens"
    >
      <div className="first-page-grid">
        <div className="first-page-box">
          {/* `elementtiming`: the page's text painted, as `npm run bench:reader` times it. */}
          <div className="first-page-text">
            {page.blocks.map((block, index) => {
              switch (block.type) {
                case 'chapter-heading':
                  return (
                    <h2 key={index} className="first-page-chapter" {...elementTiming}>
                      {block.prefix}
                      <Spans spans={block.spans} />
                    </h2>
                  )
                case 'heading':
                  return (
                    <h3 key={index} {...elementTiming}>
                      <Spans spans={block.spans} />
                    </h3>
                  )
                case 'paragraph':
                  return (
                    <p key={index} {...elementTiming}>
                      <Spans spans={block.spans} />
                    </p>
                  )
                case 'list':
                  return (
                    <ul key={index} {...elementTiming}>
                      {block.items.map((item, itemIndex) => (
                        <li key={itemIndex}>
                          <Spans spans={item} />
                        </li>
                      ))}
                    </ul>
                  )
                case 'code':
                  return (
                    <pre key={index} {...elementTiming}>
                      <code>{block.lines.join('\n')}</code>
                    </pre>
                  )
              }
            })}
          </div>
        </div>
      </div>
    </div>
  )
}
