import { useId } from 'react'
import { data, Form, Link, redirect, useNavigation } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { confirmedErrata, errataChangelog } from '#app/features/errata/errata-triage.server.ts'
import { errorData } from '#app/components/error-boundary.tsx'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { listEditions, publishEdition } from '#app/features/library/editions.server.ts'
import {
  getManuscriptBook,
  getWorkingManuscript,
  saveManuscriptDraft,
} from '#app/features/library/manuscript-drafts.server.ts'
import { parseManuscript } from '#app/features/library/editions/manuscript.ts'
import {
  manuscriptFieldErrorsOf,
  PublishEditionSchema,
  readManuscriptUpload,
  SaveManuscriptSchema,
} from '#app/features/library/manuscript-form.server.ts'
import {
  CHANGELOG_MAX_LENGTH,
  MANUSCRIPT_MAX_BYTES,
  type ManuscriptFieldErrors,
} from '#app/features/library/manuscript-form.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/book-manuscript'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'

export const meta: Route.MetaFunction = ({ loaderData, matches }) =>
  privatePageMeta(
    `Manuscript${loaderData ? ` of ${loaderData.book.title}` : ''} — Back office`,
    'A book’s manuscript and editions in the CodeBook back office.',
    { matches },
  )

/** Up to 2 MB of UTF-8 posted URL-encoded (a line break or punctuation takes 3 bytes) or as a file. */
export const handle = { requestBody: { maxBytes: 3 * MANUSCRIPT_MAX_BYTES + 1024 * 1024 } }

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The book of the URL, or the ordinary 404 (an id that is not a UUID never reaches the database). */
async function requireBook(db: Parameters<typeof getManuscriptBook>[0], bookId: string | undefined) {
  const id = bookId?.toLowerCase()
  const book = id && uuidPattern.test(id) ? await getManuscriptBook(db, id) : null
  if (!book)
    throw data(errorData('Page not found', 'We could not find the page you asked for.'), { status: 404 })
  return book
}

export async function loader({ request, context, params, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const { db } = getAppContext(context)
  const book = await requireBook(db, params.bookId)
  const working = await getWorkingManuscript(db, book)
  // Checked on every load, so a draft that would not render says so before anyone tries to publish it.
  let problem: string | null = null
  if (working.text.trim() !== '') {
    try {
      parseManuscript(working.text, 'manuscript')
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error)
    }
  }
  const published = Number(url.searchParams.get('published'))
  return {
    book: { id: book.id, slug: book.slug, title: book.title, liveEdition: book.liveEdition },
    manuscript: working.text,
    manuscriptSource: working.source,
    /** Changes whenever the stored manuscript does: the editor is rebuilt with it after a save or upload. */
    manuscriptVersion: `${working.source}:${working.updatedAt?.toISOString() ?? ''}`,
    problem,
    notice:
      Number.isSafeInteger(published) && published > 0
        ? `Edition ${published} is published: owners were told by email and download it from now on.`
        : url.searchParams.get('saved') === '1'
          ? 'The draft is saved. Nothing is published until you publish a new edition.'
          : null,
    /** Confirmed errata the next edition fixes: offered as its changelog (issue 29). */
    errataChangelog: errataChangelog(await confirmedErrata(db, book.id)),
    editions: (await listEditions(db, book.id)).map((edition) => ({
      ...edition,
      publishedAt: edition.publishedAt.toISOString(),
    })),
  }
}

type ActionResult = {
  intent: 'save' | 'publish' | 'upload'
  fieldErrors: ManuscriptFieldErrors
  /** What was sent, shown again so nothing typed is lost. */
  manuscript?: string
  changelog?: string
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const app = getAppContext(context)
  const book = await requireBook(app.db, params.bookId)
  const form = await readForm(request)
  const actor = { id: admin.id, email: admin.email }
  const page = `/admin/books/${book.id}/manuscript`
  const refuse = (result: ActionResult) => data(result, { status: 400 })
  const intent = form.get('intent')

  if (intent === 'upload') {
    const upload = await readManuscriptUpload(form.get('file'))
    if (!upload.ok) return refuse({ intent, fieldErrors: { file: upload.error } })
    const parsed = SaveManuscriptSchema.safeParse({ manuscript: upload.text })
    if (!parsed.success)
      return refuse({ intent, fieldErrors: { file: manuscriptFieldErrorsOf(parsed.error).manuscript } })
    await saveManuscriptDraft(app.db, {
      bookId: book.id,
      manuscript: parsed.data.manuscript,
      actor,
      via: 'upload',
    })
    return redirect(`${page}?saved=1`, 303)
  }

  if (intent === 'save') {
    const parsed = SaveManuscriptSchema.safeParse({ manuscript: form.get('manuscript') ?? undefined })
    if (!parsed.success)
      return refuse({
        intent,
        fieldErrors: manuscriptFieldErrorsOf(parsed.error),
        manuscript: textOf(form.get('manuscript')),
        changelog: textOf(form.get('changelog')),
      })
    await saveManuscriptDraft(app.db, {
      bookId: book.id,
      manuscript: parsed.data.manuscript,
      actor,
      via: 'editor',
    })
    return redirect(`${page}?saved=1`, 303)
  }

  if (intent === 'publish') {
    const sent = {
      manuscript: textOf(form.get('manuscript')),
      changelog: textOf(form.get('changelog')),
    }
    const parsed = PublishEditionSchema.safeParse({
      manuscript: form.get('manuscript') ?? undefined,
      changelog: form.get('changelog') ?? undefined,
    })
    if (!parsed.success)
      return refuse({ intent, fieldErrors: manuscriptFieldErrorsOf(parsed.error), ...sent })
    const result = await publishEdition(app.db, app.storage, {
      bookId: book.id,
      ...parsed.data,
      actor,
      libraryUrl: new URL('/account/library', app.env.publicUrl).toString(),
      logger: app.logger,
    })
    if (!result.ok) {
      if (result.status === 404)
        throw data(errorData('Page not found', 'We could not find the page you asked for.'), { status: 404 })
      return refuse({ intent, fieldErrors: result.fieldErrors, ...sent })
    }
    app.kickOutbox()
    return redirect(`${page}?published=${result.edition}`, 303)
  }

  return refuse({ intent: 'save', fieldErrors: { manuscript: 'Choose Save draft or Publish new edition.' } })
}

function textOf(value: FormDataEntryValue | null): string | undefined {
  return typeof value === 'string' ? value : undefined
}

const sourceLabels = {
  draft: 'Your saved draft.',
  edition: 'The manuscript of the newest edition.',
  seed: 'The manuscript the store shipped with (content/books).',
  none: 'No manuscript yet: type or upload one, then publish the first edition.',
} as const

export default function BookManuscript({ loaderData, actionData }: Route.ComponentProps) {
  const { book, editions, notice, problem } = loaderData
  const result = actionData as ActionResult | undefined
  const errors = result?.fieldErrors ?? {}
  const navigation = useNavigation()
  const busyIntent = navigation.state !== 'idle' ? navigation.formData?.get('intent') : null
  const manuscriptId = useId()
  const fileId = useId()
  const changelogId = useId()
  const uploadErrors = result?.intent === 'upload' ? errors : {}
  const editorErrors = result?.intent === 'upload' ? {} : errors
  const manuscriptError = editorErrors.manuscript
  return (
    <section aria-labelledby="manuscript-heading" className="flex flex-col gap-8">
      <header>
        <p className="text-sm">
          <Link to={`/admin/books/${book.id}`} className="text-blue-700 underline dark:text-sky-300">
            Back to the book
          </Link>
        </p>
        <h1 id="manuscript-heading" className="mt-2 text-2xl font-semibold">
          Manuscript of {book.title}
        </h1>
        <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">
          {book.liveEdition > 0
            ? `Owners download edition ${book.liveEdition}.`
            : 'This book has no files yet: publish its first edition to sell it.'}{' '}
          The format is the small Markdown of content/books: <code># Chapter</code>, <code>## Section</code>,
          paragraphs, <code>- lists</code> and fenced code (at most 80 columns).
        </p>
      </header>

      {notice ? (
        <p
          role="status"
          className="rounded-lg border border-green-700 bg-green-50 p-3 text-green-900 dark:border-green-400 dark:bg-green-950 dark:text-green-100"
        >
          {notice}
        </p>
      ) : null}

      <Form method="post" className="flex flex-col gap-4" aria-labelledby="editor-heading">
        <h2 id="editor-heading" className="text-xl font-semibold">
          Edit
        </h2>
        <div className="flex flex-col gap-1">
          <label htmlFor={manuscriptId} className="text-sm font-medium">
            Manuscript (Markdown)
          </label>
          <p id={`${manuscriptId}-hint`} className="text-sm text-slate-600 dark:text-slate-300">
            {sourceLabels[loaderData.manuscriptSource]}
            {problem && !manuscriptError ? ` It cannot be published as it is: ${problem}` : ''}
          </p>
          <textarea
            key={loaderData.manuscriptVersion}
            id={manuscriptId}
            name="manuscript"
            rows={24}
            spellCheck={false}
            required
            defaultValue={result?.manuscript ?? loaderData.manuscript}
            aria-invalid={manuscriptError ? true : undefined}
            aria-describedby={[`${manuscriptId}-hint`, manuscriptError ? `${manuscriptId}-error` : '']
              .filter(Boolean)
              .join(' ')}
            className="rounded-lg border border-slate-400 bg-white px-3 py-2 font-mono text-sm text-slate-900 aria-invalid:border-red-600 dark:border-gray-500 dark:bg-gray-900 dark:text-slate-100 dark:aria-invalid:border-red-400"
          />
          {manuscriptError ? (
            <p
              id={`${manuscriptId}-error`}
              className="text-sm whitespace-pre-wrap text-red-700 dark:text-red-300"
            >
              {manuscriptError}
            </p>
          ) : null}
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={changelogId} className="text-sm font-medium">
            What changed in this edition (needed to publish)
          </label>
          <textarea
            key={loaderData.manuscriptVersion}
            id={changelogId}
            name="changelog"
            rows={3}
            maxLength={CHANGELOG_MAX_LENGTH}
            defaultValue={result?.changelog ?? loaderData.errataChangelog}
            aria-invalid={editorErrors.changelog ? true : undefined}
            aria-describedby={editorErrors.changelog ? `${changelogId}-error` : undefined}
            className="rounded-lg border border-slate-400 bg-white px-3 py-2 text-slate-900 aria-invalid:border-red-600 dark:border-gray-500 dark:bg-gray-900 dark:text-slate-100 dark:aria-invalid:border-red-400"
          />
          {editorErrors.changelog ? (
            <p id={`${changelogId}-error`} className="text-sm text-red-700 dark:text-red-300">
              {editorErrors.changelog}
            </p>
          ) : null}
        </div>
        <div className="flex flex-wrap gap-3">
          <button
            type="submit"
            name="intent"
            value="save"
            formNoValidate
            disabled={Boolean(busyIntent)}
            className="inline-flex items-center justify-center rounded-lg border border-slate-400 px-4 py-2 text-sm font-medium hover:bg-slate-100 disabled:opacity-60 dark:border-gray-500 dark:hover:bg-gray-800"
          >
            {busyIntent === 'save' ? 'Saving…' : 'Save draft'}
          </button>
          <button
            type="submit"
            name="intent"
            value="publish"
            disabled={Boolean(busyIntent)}
            className={primaryButton}
          >
            {busyIntent === 'publish' ? 'Publishing…' : `Publish new edition (${book.liveEdition + 1})`}
          </button>
        </div>
      </Form>

      <Form
        method="post"
        encType="multipart/form-data"
        className="flex flex-col gap-3"
        aria-labelledby="upload-heading"
      >
        <h2 id="upload-heading" className="text-xl font-semibold">
          Upload a manuscript
        </h2>
        <input type="hidden" name="intent" value="upload" />
        <div className="flex flex-col gap-1">
          <label htmlFor={fileId} className="text-sm font-medium">
            Markdown file (.md, UTF-8, at most {MANUSCRIPT_MAX_BYTES / 1024 / 1024} MB)
          </label>
          <input
            id={fileId}
            type="file"
            name="file"
            accept=".md,.markdown,text/markdown"
            required
            aria-invalid={uploadErrors.file ? true : undefined}
            aria-describedby={uploadErrors.file ? `${fileId}-error` : undefined}
            className="text-sm"
          />
          {uploadErrors.file ? (
            <p id={`${fileId}-error`} className="text-sm text-red-700 dark:text-red-300">
              {uploadErrors.file}
            </p>
          ) : null}
        </div>
        <p className="text-sm text-slate-600 dark:text-slate-300">
          The file replaces the draft above; publish it from there.
        </p>
        <div>
          <button
            type="submit"
            disabled={Boolean(busyIntent)}
            className="inline-flex items-center justify-center rounded-lg border border-slate-400 px-4 py-2 text-sm font-medium hover:bg-slate-100 disabled:opacity-60 dark:border-gray-500 dark:hover:bg-gray-800"
          >
            {busyIntent === 'upload' ? 'Uploading…' : 'Upload as draft'}
          </button>
        </div>
      </Form>

      <TitledSection id="editions-heading" title="Editions" headingClassName="mb-3 text-xl font-semibold">
        {editions.length === 0 ? (
          <p>No edition has been published in the back office yet.</p>
        ) : (
          <ol className="flex flex-col gap-3">
            {editions.map((edition) => (
              <li
                key={edition.number}
                className="rounded-lg border border-slate-200 p-3 dark:border-gray-700"
              >
                <p className="font-medium">
                  Edition {edition.number} · <FormattedDate value={edition.publishedAt} style="dateTime" /> ·{' '}
                  {edition.publishedBy
                    ? `published by ${edition.publishedBy}`
                    : edition.number === 1
                      ? 'the store’s original manuscript'
                      : 'published by a deleted account'}
                </p>
                <p className="mt-1 text-sm whitespace-pre-line">{edition.changelog}</p>
              </li>
            ))}
          </ol>
        )}
      </TitledSection>
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
