import { Link } from 'react-router'
import { Description } from '#app/features/catalog/components/description.tsx'
import type { Block } from '#app/features/catalog/markdown.ts'
import { authorPath, type AuthorPhotoVariants } from '../author-photo.ts'
import { AuthorPhoto } from './author-photo.tsx'

/** The book page's 'About the author': photo, the bio's first paragraph, and the way to the author's page. */
export function AboutAuthor({
  author,
}: {
  author: { slug: string; name: string; photo: AuthorPhotoVariants | null; firstParagraph: Block | null }
}) {
  return (
    <section aria-labelledby="about-author-heading" className="mx-auto max-w-6xl px-4 pb-12">
      <h2 id="about-author-heading" className="mb-4 text-2xl font-semibold">
        About the author
      </h2>
      <div className="flex flex-col gap-4 rounded-lg border border-slate-200 bg-white p-5 sm:flex-row sm:items-start dark:border-gray-700 dark:bg-slate-800">
        <AuthorPhoto photo={author.photo} alt={`Photo of ${author.name}`} size={64} className="shrink-0" />
        <div className="flex min-w-0 flex-col gap-2">
          <p className="text-lg font-semibold">{author.name}</p>
          {author.firstParagraph ? <Description blocks={[author.firstParagraph]} /> : null}
          <p>
            <Link
              to={authorPath(author.slug)}
              className="font-medium text-blue-700 underline underline-offset-4 dark:text-sky-300"
            >
              More about {author.name} and their books
            </Link>
          </p>
        </div>
      </div>
    </section>
  )
}
