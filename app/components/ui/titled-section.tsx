import type { ReactNode } from 'react'

/**
 * A section named by its heading: `aria-labelledby` ties the two, so a screen reader lists the section as a
 * region by that name. `level` 1 when it is the page's own heading; `headingClassName` is the heading's look,
 * `className` the section's.
 */
export function TitledSection({
  id,
  title,
  level = 2,
  className,
  headingClassName,
  children,
}: {
  id: string
  title: ReactNode
  level?: 1 | 2
  className?: string
  headingClassName: string
  children: ReactNode
}) {
  const Heading = level === 1 ? 'h1' : 'h2'
  return (
    <section aria-labelledby={id} className={className}>
      <Heading id={id} className={headingClassName}>
        {title}
      </Heading>
      {children}
    </section>
  )
}
