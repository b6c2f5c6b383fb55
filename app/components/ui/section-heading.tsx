import type { ReactNode } from 'react'

/** The seed's centred, underlined section title; `level` 1 when it is the page's own heading. */
export function SectionHeading({
  id,
  level = 2,
  children,
}: {
  id?: string
  level?: 1 | 2
  children: ReactNode
}) {
  const Heading = level === 1 ? 'h1' : 'h2'
  return (
    <Heading id={id} className="mb-8 text-center text-2xl font-semibold underline underline-offset-8">
      {children}
    </Heading>
  )
}
