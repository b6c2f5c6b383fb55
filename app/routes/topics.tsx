import { Link } from 'react-router'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { listTopics } from '#app/features/catalog/browse.server.ts'
import { topicPath } from '#app/features/catalog/facets.ts'
import { pageMeta } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/topics'
import { formatCount } from '#app/features/locale/number-format.ts'

export const meta: Route.MetaFunction = (args) =>
  pageMeta(args, {
    title: 'Topics',
    description: 'Every topic of the CodeBook store’s eBooks, with how many books each has.',
    path: '/topics',
    keepParams: [],
  })

/** Every topic a published book has, with its book count, by name. */
export async function loader({ context }: Route.LoaderArgs) {
  return { topics: await listTopics(getAppContext(context).db) }
}

export default function Topics({ loaderData }: Route.ComponentProps) {
  return (
    <section className="mx-auto max-w-7xl px-4 py-12">
      <SectionHeading level={1}>Topics</SectionHeading>
      <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        {loaderData.topics.map((topic) => (
          <li key={topic.value}>
            <Link
              to={topicPath(topic.value)}
              className="flex justify-between gap-2 rounded-lg border border-slate-200 px-4 py-3 font-medium text-blue-700 hover:bg-slate-100 dark:border-gray-700 dark:text-sky-300 dark:hover:bg-gray-700"
            >
              <span>{topic.name}</span>
              <span className="text-slate-700 dark:text-slate-300">
                {formatCount(topic.count)}
                <span className="sr-only">{topic.count === 1 ? ' book' : ' books'}</span>
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
