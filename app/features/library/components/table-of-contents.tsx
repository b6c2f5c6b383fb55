import type { ContentsChapter } from '../editions/contents.ts'

/** The live edition's chapters and sections, closed until the reader opens it (a `<details>`: no script). */
export function TableOfContents({ chapters }: { chapters: ContentsChapter[] }) {
  const sections = chapters.reduce((sum, chapter) => sum + chapter.sections.length, 0)
  return (
    <details className="group rounded-lg border border-slate-200 bg-white dark:border-gray-700 dark:bg-slate-900/40">
      <summary className="cursor-pointer rounded-lg px-4 py-3 font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-700 dark:focus-visible:outline-sky-300">
        Table of contents{' '}
        <span className="font-normal text-slate-600 dark:text-slate-300">
          ({plural(chapters.length, 'chapter')}
          {sections > 0 ? `, ${plural(sections, 'section')}` : ''})
        </span>
      </summary>
      <ol className="flex flex-col gap-3 border-t border-slate-200 px-4 py-4 dark:border-gray-700">
        {chapters.map((chapter, index) => (
          <li key={index}>
            <span className="font-medium">
              <span className="text-slate-600 dark:text-slate-300">Chapter {index + 1} · </span>
              {chapter.title}
            </span>
            {chapter.sections.length > 0 ? (
              <ol className="mt-1 flex flex-col gap-1 pl-6 text-slate-700 dark:text-slate-300">
                {chapter.sections.map((section, sectionIndex) => (
                  <li key={sectionIndex}>{section}</li>
                ))}
              </ol>
            ) : null}
          </li>
        ))}
      </ol>
    </details>
  )
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}
