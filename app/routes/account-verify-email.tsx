import { data, Form, Link } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { AccountCard } from '#app/features/identity/components/account-form.tsx'
import { FormError, linkClass, Notice } from '#app/features/identity/components/account-notice.tsx'
import { accountMessages } from '#app/features/identity/account-forms.ts'
import { refused } from '#app/features/identity/account-outcome.server.ts'
import {
  checkEmailLink,
  resendVerificationEmail,
  verifyEmailLink,
} from '#app/features/identity/email-verification.server.ts'
import { getSessionUser, requireUser } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import { secretUrlHeaders } from '#app/sign-in.server.ts'
import type { Route } from './+types/account-verify-email'
import { privatePageMeta } from '#app/features/seo/meta.ts'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Confirm your email', 'Confirm the email address of your CodeBook account.', { matches })

type LinkState = 'valid' | 'expired' | 'used' | 'invalid' | 'verified' | 'sent' | 'taken'

/**
 * The mailed confirmation link. Opening it changes nothing (mail scanners open links too, and would use up a
 * single-use link): the page asks for one click, which posts.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const token = readToken(new URL(request.url).searchParams.get('token'))
  const state: LinkState = token ? await checkEmailLink(getAppContext(context).db, token) : 'used'
  return { token: state === 'valid' ? token : null, state, canResend: await canResend({ request, context }) }
}

export const headers: Route.HeadersFunction = secretUrlHeaders

export async function action({ request, context, url }: Route.ActionArgs) {
  const form = await readForm(request)
  const visit = { request, context }
  if (form.get('intent') === 'resend') {
    const user = await requireUser({ ...visit, url: new URL('/account', url) })
    const outcome = await resendVerificationEmail(visit, user)
    if (!outcome.ok) return refused(outcome, { intent: 'resend' })
    return data({ state: 'sent' as LinkState, notice: outcome.notice, canResend: false })
  }
  const token = readToken(form.get('token'))
  const verified = token ? await verifyEmailLink(visit, token) : { outcome: 'used' as const }
  if (verified.outcome === 'taken')
    return data(
      {
        state: 'taken' as LinkState,
        formError: accountMessages.newEmailTaken(verified.email),
        canResend: false,
      },
      { status: 409 },
    )
  const state: LinkState = verified.outcome
  const notice =
    verified.outcome === 'verified'
      ? verified.changedFrom
        ? `Your account's email is now ${verified.email}.`
        : `Thank you: ${verified.email} is confirmed.`
      : undefined
  return data({ state, notice, canResend: state !== 'verified' && (await canResend(visit)) })
}

function readToken(value: FormDataEntryValue | null): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= 200 ? value : null
}

/** A signed-in account whose email is not yet confirmed can ask for a new link from here. */
async function canResend(visit: Parameters<typeof getSessionUser>[0]) {
  const user = await getSessionUser(visit)
  return Boolean(user && !user.isGuest && !user.emailVerified)
}

const problems: Partial<Record<LinkState, string>> = {
  expired: 'This confirmation link has expired: links work for 24 hours.',
  used: 'This confirmation link has already been used, or is not one of ours.',
  invalid: 'This confirmation link is no longer valid (was the email changed since it was sent?).',
}

export default function VerifyEmail({ loaderData, actionData }: Route.ComponentProps) {
  const answer = actionData as
    { state?: LinkState; notice?: string; canResend?: boolean; formError?: string } | undefined
  const state = answer?.state ?? loaderData.state
  const canResendNow = answer?.canResend ?? loaderData.canResend
  const problem = problems[state]
  return (
    <AccountCard title="Confirm your email">
      <div className="flex flex-col gap-4">
        {answer?.formError ? <FormError>{answer.formError}</FormError> : null}
        {answer?.notice ? <Notice>{answer.notice}</Notice> : null}
        {state === 'valid' && loaderData.token ? (
          <Form method="post" className="flex flex-col gap-4">
            <p className="text-sm">One click confirms this address for your CodeBook account.</p>
            <input type="hidden" name="token" value={loaderData.token} />
            <button type="submit" className={`${primaryButton} py-2.5`}>
              Confirm my email
            </button>
          </Form>
        ) : null}
        {problem ? <FormError>{problem}</FormError> : null}
        {problem && canResendNow ? (
          <Form method="post" className="flex flex-col">
            <input type="hidden" name="intent" value="resend" />
            <button type="submit" className={`${primaryButton} py-2.5`}>
              Send me a new link
            </button>
          </Form>
        ) : null}
        {problem && !canResendNow ? (
          <p className="text-sm">
            <Link to="/login?redirectTo=%2Faccount" className={linkClass}>
              Log in
            </Link>{' '}
            to ask for a new link from your account page (if your email is already confirmed, there is nothing
            more to do).
          </p>
        ) : null}
        {state === 'verified' || state === 'sent' || state === 'taken' ? (
          <Link to="/account" className={linkClass}>
            Go to your account
          </Link>
        ) : null}
      </div>
    </AccountCard>
  )
}
