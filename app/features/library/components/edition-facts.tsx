import { levelLabel, type CatalogLevel } from '#app/features/catalog/facets.ts'
import { formatFileSize } from '#app/features/catalog/format.ts'
import type { EditionDetails } from '../book-contents.server.ts'
import { formatReadingTime } from '../editions/contents.ts'
import { TableOfContents } from './table-of-contents.tsx'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import { formatCount, formatOrdinal } from '#app/features/locale/number-format.ts'

/** '1st', '2nd', '23rd', '11th' (without Intl: locale/number-format.ts says why). */
export const ordinal = formatOrdinal

/**
 * 'Book details': what a reader weighs before buying (pages, reading time, level, edition, formats), the
 * table of contents and the edition history, all from the live edition.
 */
export function EditionFacts({ details, level }: { details: EditionDetails; level: CatalogLevel | null }) {
  const { formats, contents, edition, changelog } = details
  const pages = formats.find((format) => format.format === 'pdf')?.pageCount ?? null
  if (!edition && !contents && !level) return null
  return (
    <section aria-labelledby="edition-heading" id="about-this-ebook" className="mx-auto max-w-6xl px-4 pb-12">
      <h2 id="edition-heading" className="mb-6 text-2xl font-semibold">
        Book details
      </h2>
      <div className="grid gap-8 md:grid-cols-[minmax(0,2fr)_minmax(0,3fr)] md:gap-10">
        <dl className="grid grid-cols-[auto_minmax(0,1fr)] content-start gap-x-6 gap-y-3">
          {pages ? <Fact term="Pages">{formatCount(pages)} pages (PDF)</Fact> : null}
          {contents ? (
            <Fact term="Reading time">
              About {formatReadingTime(contents.readingMinutes)}{' '}
              <span className="text-slate-600 dark:text-slate-300">
                ({formatCount(contents.wordCount)} words)
              </span>
            </Fact>
          ) : null}
          {level ? <Fact term="Level">{levelLabel(level)}</Fact> : null}
          {edition ? (
            <Fact term="Edition">
              {ordinal(edition.number)} edition, <FormattedDate value={edition.publishedAt} />
            </Fact>
          ) : null}
          {formats.length > 0 ? (
            <Fact term="Formats">
              <ul>
                {formats.map((format) => (
                  <li key={format.format}>
                    {format.format.toUpperCase()} ({formatFileSize(format.sizeBytes)})
                  </li>
                ))}
              </ul>
            </Fact>
          ) : null}
        </dl>
        <div className="flex flex-col gap-4">
          {contents && contents.chapters.length > 0 ? <TableOfContents chapters={contents.chapters} /> : null}
          {changelog.length > 0 ? (
            <details className="rounded-lg border border-slate-200 bg-white dark:border-gray-700 dark:bg-slate-900/40">
              <summary className="cursor-pointer rounded-lg px-4 py-3 font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-700 dark:focus-visible:outline-sky-300">
                Edition history{' '}
                <span className="font-normal text-slate-600 dark:text-slate-300">
                  ({changelog.length} {changelog.length === 1 ? 'edition' : 'editions'})
                </span>
              </summary>
              <ol className="flex flex-col gap-4 border-t border-slate-200 px-4 py-4 dark:border-gray-700">
                {changelog.map((entry) => (
                  <li key={entry.number}>
                    <p className="font-medium">
                      {ordinal(entry.number)} edition, <FormattedDate value={entry.publishedAt} />
                    </p>
                    <p className="whitespace-pre-line text-slate-700 dark:text-slate-300">
                      {entry.changelog || 'No changes noted.'}
                    </p>
                  </li>
                ))}
              </ol>
            </details>
          ) : null}
        </div>
      </div>
    </section>
  )
}

function Fact({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <>
      <dt className="font-semibold">{term}</dt>
      <dd className="text-slate-800 dark:text-slate-100">{children}</dd>
    </>
  )
}
