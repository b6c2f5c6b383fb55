import { Link } from 'react-router'
import { topicPath } from '../facets.ts'

/** A book's topics, each linking to its topic page (docs/decisions/019). */
export function TopicLinks({ topics }: { topics: readonly { slug: string; name: string }[] }) {
  if (topics.length === 0) return null
  return (
    <nav aria-label="Topics">
      <ul className="flex flex-wrap gap-2">
        {topics.map((topic) => (
          <li key={topic.slug}>
            <Link
              to={topicPath(topic.slug)}
              className="inline-block rounded-full border border-slate-300 px-3 py-1 text-sm font-medium text-blue-700 hover:bg-slate-100 dark:border-gray-600 dark:text-sky-300 dark:hover:bg-gray-700"
            >
              {topic.name}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  )
}
