import type { ReactNode } from 'react'
import { data, Form, Link, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { refused, type AccountOutcome, type Visit } from '#app/features/identity/account-outcome.server.ts'
import {
  changeEmail,
  changePassword,
  listAccountSessions,
  revokeOtherSessions,
  revokeSession,
} from '#app/features/identity/account-settings.server.ts'
import {
  accountMessages,
  newPasswordHint,
  type AccountFormData,
} from '#app/features/identity/account-forms.ts'
import {
  FormError,
  linkClass,
  Notice,
  secondaryButton,
} from '#app/features/identity/components/account-notice.tsx'
import { EmailField, PasswordField } from '#app/features/identity/components/credential-fields.tsx'
import { UnverifiedEmailNotice } from '#app/features/identity/components/unverified-email-notice.tsx'
import { requireUser } from '#app/features/identity/session.server.ts'
import {
  createAppPasswordFor,
  listAppPasswords,
  revokeAppPasswordOf,
  type AppPasswordCreated,
} from '#app/features/identity/app-passwords-form.server.ts'
import { AppPasswordsPanel } from '#app/features/identity/components/app-passwords-panel.tsx'
import { formatFileSize } from '#app/features/catalog/format.ts'
import { KindlePanel } from '#app/features/library/components/kindle-panel.tsx'
import {
  removeKindleAddressFor,
  saveKindleAddressFor,
  senderAddress,
} from '#app/features/library/kindle-form.server.ts'
import { getKindleAddress } from '#app/features/library/kindle.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import { passOnRetryAfter } from '#app/sign-in.server.ts'
import type { Route } from './+types/account'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import { useFormatDate } from '#app/features/locale/date-format.ts'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta(
    'Account settings',
    'Your CodeBook account: email, password, sign-in methods and your data.',
    { matches },
  )

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireUser({ request, context, url })
  const { db, env } = getAppContext(context)
  return {
    email: user.email,
    emailVerified: user.emailVerified,
    sessions: await listAccountSessions(db, user),
    passwordChanged: url.searchParams.has('passwordChanged'),
    appPasswords: (await listAppPasswords(db, user.id)).map((row) => ({
      ...row,
      createdAt: row.createdAt.toISOString(),
      lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    })),
    libraryFeedUrl: `${env.publicUrl.origin}/opds/library`,
    kindle: {
      address: await getKindleAddress(db, user.id),
      sender: senderAddress(env.MAIL_FROM),
      maxSize: formatFileSize(env.MAIL_MAX_ATTACHMENT_MB * 1024 * 1024),
    },
  }
}

export const headers: Route.HeadersFunction = passOnRetryAfter

type AccountUser = Awaited<ReturnType<typeof requireUser>>

/** The page's forms, by the intent each posts. */
const accountForms: Record<
  string,
  (visit: Visit, user: AccountUser, form: FormData) => Promise<AccountOutcome | AppPasswordCreated>
> = {
  'change-email': changeEmail,
  'change-password': changePassword,
  'revoke-session': (visit, user, form) => revokeSession(visit, user, String(form.get('sessionId') ?? '')),
  'revoke-other-sessions': (visit) => revokeOtherSessions(visit),
  'create-app-password': createAppPasswordFor,
  'revoke-app-password': revokeAppPasswordOf,
  'save-kindle-address': (visit, user, form) =>
    saveKindleAddressFor(getAppContext(visit.context).db, user, form),
  'remove-kindle-address': (visit, user) => removeKindleAddressFor(getAppContext(visit.context).db, user),
}

export async function action({ request, context, url }: Route.ActionArgs) {
  const visit = { request, context }
  const user = await requireUser({ ...visit, url })
  const form = await readForm(request)
  const intent = String(form.get('intent'))
  const handle = accountForms[intent]
  const outcome: AccountOutcome | AppPasswordCreated = handle
    ? await handle(visit, user, form)
    : { ok: false, status: 400, formError: 'Please use one of the forms on this page.' }
  if (!outcome.ok) return refused(outcome, { intent })
  if ('appPassword' in outcome) {
    return data({
      intent,
      notice: outcome.notice,
      appPassword: outcome.appPassword,
    } satisfies AccountFormData)
  }
  if (outcome.setCookies?.length) {
    // A new password comes with a new session: its cookie travels on the redirect, the notice in the URL.
    const headers = new Headers()
    for (const cookie of outcome.setCookies) headers.append('Set-Cookie', cookie)
    throw redirect('/account?passwordChanged=1', { status: 303, headers })
  }
  return data({ intent, notice: outcome.notice } satisfies AccountFormData)
}

export default function Account({ loaderData, actionData }: Route.ComponentProps) {
  const { email, emailVerified, sessions, passwordChanged } = loaderData
  const answer = actionData as AccountFormData | undefined
  const answered = (intent: string) => (answer?.intent === intent ? answer : undefined)
  const others = sessions.filter((session) => !session.current)
  const formatDate = useFormatDate()
  return (
    <div className="mx-auto flex max-w-3xl flex-col gap-8 px-4 py-12">
      <SectionHeading level={1}>Account settings</SectionHeading>
      {emailVerified ? null : <UnverifiedEmailNotice email={email} />}
      {answer &&
      !answer.intent?.startsWith('change-') &&
      !answer.intent?.startsWith('revoke-') &&
      !answer.intent?.startsWith('create-') &&
      !answer.intent?.endsWith('-kindle-address') ? (
        answer.formError ? (
          <FormError>{answer.formError}</FormError>
        ) : null
      ) : null}

      <Panel title="Your books">
        <ul className="flex flex-wrap gap-x-6 gap-y-2">
          <li>
            <Link to="/account/orders" className={linkClass}>
              My orders
            </Link>
          </li>
          <li>
            <Link to="/account/library" className={linkClass}>
              My Library
            </Link>
          </li>
          <li>
            <Link to="/account/wishlist" className={linkClass}>
              My Wishlist
            </Link>
          </li>
          <li>
            <Link to="/account/gifts" className={linkClass}>
              My gifts
            </Link>
          </li>
        </ul>
      </Panel>

      <Panel title="Email">
        <p className="mb-4 text-sm">
          Your email is <strong>{email}</strong>
          {emailVerified ? ' (confirmed).' : ' (not confirmed yet).'}
        </p>
        <AnsweredForm intent="change-email" answer={answered('change-email')}>
          <EmailField
            label="New email"
            name="newEmail"
            autoComplete="email"
            hint="We mail a link to the new address; your email changes once you follow it, and we tell the old one."
            error={answered('change-email')?.fieldErrors?.newEmail}
          />
          <SubmitButton>Change email</SubmitButton>
        </AnsweredForm>
      </Panel>

      <Panel title="Password">
        {passwordChanged && !answer ? (
          <div className="mb-4">
            <Notice>{accountMessages.passwordChanged}</Notice>
          </div>
        ) : null}
        <AnsweredForm intent="change-password" answer={answered('change-password')}>
          {/* For password managers: whose password this is. */}
          <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
          <PasswordField
            kind="current"
            label="Current password"
            name="currentPassword"
            requiredMessage={accountMessages.currentPasswordMissing}
            error={answered('change-password')?.fieldErrors?.currentPassword}
          />
          <PasswordField
            kind="new"
            label="New password"
            name="newPassword"
            hint={`${newPasswordHint} Every other session is signed out.`}
            error={answered('change-password')?.fieldErrors?.newPassword}
          />
          <SubmitButton>Change password</SubmitButton>
        </AnsweredForm>
      </Panel>

      <Panel title="Where you are signed in">
        {answered('revoke-session') || answered('revoke-other-sessions') ? (
          <div className="mb-4">
            {(answered('revoke-session') ?? answered('revoke-other-sessions'))?.notice ? (
              <Notice>{(answered('revoke-session') ?? answered('revoke-other-sessions'))!.notice}</Notice>
            ) : (
              <FormError>
                {(answered('revoke-session') ?? answered('revoke-other-sessions'))!.formError}
              </FormError>
            )}
          </div>
        ) : null}
        <ul className="flex flex-col divide-y divide-slate-200 dark:divide-gray-700">
          {sessions.map((session) => (
            <li key={session.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
              <div>
                <p className="font-medium">
                  {session.device}
                  {session.current ? (
                    <span className="ml-2 rounded-full bg-blue-100 px-2 py-0.5 text-xs font-semibold text-blue-900 dark:bg-sky-900 dark:text-sky-100">
                      This device
                    </span>
                  ) : null}
                </p>
                <p className="text-sm text-slate-600 dark:text-slate-300">
                  Last seen <FormattedDate value={session.lastSeen} style="dateTime" />
                </p>
              </div>
              {session.current ? null : (
                <Form method="post">
                  <input type="hidden" name="intent" value="revoke-session" />
                  <input type="hidden" name="sessionId" value={session.id} />
                  <button
                    type="submit"
                    className={secondaryButton}
                    aria-label={`Sign out ${session.device}, last seen ${formatDate(session.lastSeen, 'dateTime')}`}
                  >
                    Sign out
                  </button>
                </Form>
              )}
            </li>
          ))}
        </ul>
        {others.length > 0 ? (
          <Form method="post" className="mt-4">
            <input type="hidden" name="intent" value="revoke-other-sessions" />
            <button type="submit" className={secondaryButton}>
              Sign out everywhere else
            </button>
          </Form>
        ) : (
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-300">You are signed in nowhere else.</p>
        )}
      </Panel>

      <Panel title="Reading apps" id="app-passwords">
        <AppPasswordsPanel
          email={email}
          feedUrl={loaderData.libraryFeedUrl}
          appPasswords={loaderData.appPasswords}
          created={answered('create-app-password')}
          revoked={answered('revoke-app-password')}
        />
      </Panel>

      <Panel title="Send to Kindle" id="kindle">
        <KindlePanel
          {...loaderData.kindle}
          saved={answered('save-kindle-address')}
          removed={answered('remove-kindle-address')}
        />
      </Panel>

      <Panel title="Your data">
        <ul className="flex flex-wrap gap-x-6 gap-y-2">
          <li>
            <a href="/account/export.json" download className={linkClass}>
              Export my data
            </a>
          </li>
          <li>
            <Link to="/account/delete" className={linkClass}>
              Delete my account
            </Link>
          </li>
        </ul>
      </Panel>
    </div>
  )
}

function Panel({ title, id, children }: { title: string; id?: string; children: ReactNode }) {
  return (
    <section
      id={id}
      className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-gray-700 dark:bg-gray-900"
    >
      <h2 className="mb-4 text-xl font-semibold">{title}</h2>
      {children}
    </section>
  )
}

/** One of the page's forms, with what its action said: a notice when done, the reason when refused. */
function AnsweredForm({
  intent,
  answer,
  children,
}: {
  intent: string
  answer: AccountFormData | undefined
  children: ReactNode
}) {
  return (
    <Form method="post" className="flex flex-col gap-4">
      {answer?.notice ? <Notice>{answer.notice}</Notice> : null}
      {answer?.formError ? <FormError>{answer.formError}</FormError> : null}
      <input type="hidden" name="intent" value={intent} />
      {children}
    </Form>
  )
}

function SubmitButton({ children }: { children: ReactNode }) {
  return (
    <button type="submit" className={`${primaryButton} self-start`}>
      {children}
    </button>
  )
}
