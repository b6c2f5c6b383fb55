import { Fragment } from 'react'

/**
 * An email address, a path or an id, which may break across lines only where a reader expects it: before
 * its `@` and its dots, after its slashes, underscores and hyphens, never inside a word. `break-all` broke it
 * at whatever letter the column ended on ('reader@exam' / 'ple.com'); a table now narrows such a column to
 * its longest part instead. A part longer than the line still wraps (`wrap-break-word`) rather than overflowing.
 */
export function BreakableToken({ children: text, className }: { children: string; className?: string }) {
  const parts = tokenParts(text)
  return (
    <span className={className ? `wrap-break-word ${className}` : 'wrap-break-word'}>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </span>
  )
}

/** 'a.reader@example.com' → ['a', '.reader', '@example', '.com']; 'pi_3N' → ['pi_', '3N']. */
export function tokenParts(text: string): string[] {
  const parts: string[] = []
  let part = ''
  for (const character of text) {
    if ((character === '@' || character === '.') && part) {
      parts.push(part)
      part = ''
    }
    part += character
    if (character === '/' || character === '_' || character === '-') {
      parts.push(part)
      part = ''
    }
  }
  if (part) parts.push(part)
  return parts
}
