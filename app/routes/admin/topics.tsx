import { data, Form, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { Options, SelectField } from '#app/components/ui/field.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { BOOK_FORM_LIMITS } from '#app/features/catalog/book-form.ts'
import { isUuid } from '#app/features/catalog/admin-books.server.ts'
import {
  listAdminTopics,
  mergeTopics,
  parseTopicName,
  renameTopic,
} from '#app/features/catalog/topics.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/topics'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Topics — Back office', 'Topics in the CodeBook back office.', { matches })

/** Every topic with its book count, to rename or merge into another. */
export async function loader({ request, context, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const topics = await listAdminTopics(getAppContext(context).db)
  const done = url.searchParams.get('done')
  return { topics, done: done === 'renamed' || done === 'merged' ? done : null }
}

type Failure = {
  topicId: string
  intent: 'rename' | 'merge'
  error: string
  name?: string
  intoId?: string
}

/** Rename a topic (its slug follows, the old one redirects) or merge it into another; audited. */
export async function action({ request, context }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const { db } = getAppContext(context)
  const form = await readForm(request)
  const topicId = String(form.get('topicId') ?? '')
  const intent = form.get('intent')
  const actor = { id: admin.id, email: admin.email }
  if (!isUuid(topicId) || (intent !== 'rename' && intent !== 'merge'))
    return data<Failure>(
      { topicId, intent: 'rename', error: 'This form could not be read. Please reload the page.' },
      400,
    )
  if (intent === 'rename') {
    const name = parseTopicName(form.get('name'))
    if (!name.ok)
      return data<Failure>({ topicId, intent, error: name.error, name: String(form.get('name') ?? '') }, 400)
    const result = await renameTopic(db, actor, topicId, name.name)
    if (result.outcome === 'invalid')
      return data<Failure>({ topicId, intent, error: result.error, name: name.name }, 400)
    throw redirect('/admin/topics?done=renamed', 303)
  }
  const intoId = String(form.get('intoId') ?? '')
  if (!isUuid(intoId))
    return data<Failure>({ topicId, intent, error: 'Please choose a topic to merge into.' }, 400)
  const result = await mergeTopics(db, actor, topicId, intoId)
  if (result.outcome === 'invalid')
    return data<Failure>({ topicId, intent, error: result.error, intoId }, 400)
  throw redirect('/admin/topics?done=merged', 303)
}

export default function AdminTopics({ loaderData, actionData }: Route.ComponentProps) {
  const { topics, done } = loaderData
  const mergeFailure = actionData?.intent === 'merge' ? actionData : null
  return (
    <TitledSection
      id="topics-heading"
      title="Topics"
      level={1}
      headingClassName="mb-6 text-2xl font-semibold"
    >
      <p className="mb-4">
        Books are filed under these topics (typed in the book form, separated by commas). Renaming a topic
        changes its page’s address; the old address leads to the new one.
      </p>
      {done ? (
        <p role="status" className="mb-4 font-medium text-emerald-800 dark:text-emerald-300">
          {done === 'renamed' ? 'The topic was renamed.' : 'The topics were merged.'}
        </p>
      ) : null}
      {topics.length > 1 ? <MergeForm topics={topics} failed={mergeFailure} /> : null}
      <ul className="flex flex-col gap-4">
        {topics.map((topic) => {
          const failed =
            actionData?.intent === 'rename' && actionData.topicId === topic.id ? actionData : null
          return (
            <li key={topic.id} className="rounded-lg border border-slate-200 p-4 dark:border-gray-700">
              <h2 className="font-semibold [overflow-wrap:anywhere]">
                {topic.name}{' '}
                <span className="font-normal text-slate-700 dark:text-slate-300">
                  · /topics/{topic.slug} · {topic.bookCount} {topic.bookCount === 1 ? 'book' : 'books'}
                </span>
              </h2>
              <div className="mt-3 grid gap-4 md:grid-cols-2">
                <Form method="post" className="flex flex-col gap-2">
                  <input type="hidden" name="topicId" value={topic.id} />
                  <TextField
                    label={`New name for ${topic.name}`}
                    name="name"
                    defaultValue={failed?.intent === 'rename' ? failed.name : topic.name}
                    error={failed?.intent === 'rename' ? failed.error : undefined}
                    required
                    maxLength={BOOK_FORM_LIMITS.topicMax}
                  />
                  <button
                    type="submit"
                    name="intent"
                    value="rename"
                    className={`${primaryButton} self-start`}
                  >
                    Rename
                  </button>
                </Form>
              </div>
            </li>
          )
        })}
      </ul>
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'

/**
 * One form merges any topic into any other: two lists of every topic, not one list per topic (with 2,000 topics
 * that was four million options on one page).
 */
function MergeForm({
  topics,
  failed,
}: {
  topics: { id: string; name: string; bookCount: number }[]
  failed: Failure | null
}) {
  const options = topics.map((topic) => ({
    value: topic.id,
    label: `${topic.name} (${topic.bookCount} ${topic.bookCount === 1 ? 'book' : 'books'})`,
  }))
  return (
    <Form
      method="post"
      className="mb-6 flex flex-col gap-3 rounded-lg border border-slate-200 p-4 md:flex-row md:items-end dark:border-gray-700"
    >
      <SelectField label="Merge the topic" name="topicId" defaultValue={failed?.topicId}>
        <Options options={options} />
      </SelectField>
      <SelectField
        label="into"
        name="intoId"
        defaultValue={failed?.intoId ?? topics[1]?.id}
        error={failed?.error}
      >
        <Options options={options} />
      </SelectField>
      <button type="submit" name="intent" value="merge" className={`${primaryButton} self-start md:self-end`}>
        Merge
      </button>
    </Form>
  )
}
