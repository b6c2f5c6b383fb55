import { Form } from 'react-router'

/**
 * Shown to a signed-in account whose email is not confirmed yet: it can shop and download all the same, and
 * ask for a new link here (a plain form post, JavaScript or not).
 */
export function UnverifiedEmailNotice({ email }: { email: string }) {
  return (
    <div
      role="region"
      aria-label="Email not confirmed"
      className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-50"
    >
      <Form
        method="post"
        action="/account/verify-email"
        className="flex flex-wrap items-center gap-x-3 gap-y-2"
      >
        <p>
          Please confirm your email: we mailed a link to <strong>{email}</strong>.
        </p>
        <input type="hidden" name="intent" value="resend" />
        <button
          type="submit"
          className="rounded font-medium text-amber-950 underline underline-offset-2 dark:text-amber-50"
        >
          Send a new link
        </button>
      </Form>
    </div>
  )
}
