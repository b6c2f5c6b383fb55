import { useState } from 'react'
import { Form } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { TextField } from '#app/components/ui/text-field.tsx'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import type { AccountFormData } from '../account-forms.ts'
import { FormError, Notice, secondaryButton } from './account-notice.tsx'

type AppPasswordItem = {
  id: string
  name: string
  hint: string
  createdAt: string
  lastUsedAt: string | null
}

/**
 * The account page's 'Reading apps' panel (issue 33): the library feed's address, the app passwords a reader
 * made (named, never shown again, with their last use) and the form to make one. Works without JavaScript;
 * with it, the new password has a Copy button.
 */
export function AppPasswordsPanel({
  email,
  feedUrl,
  appPasswords,
  created,
  revoked,
}: {
  email: string
  feedUrl: string
  appPasswords: AppPasswordItem[]
  created: AccountFormData | undefined
  revoked: AccountFormData | undefined
}) {
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-col gap-2 text-sm">
        <p>Read your books in KOReader, Thorium, Calibre or any app that reads OPDS. Add this catalogue:</p>
        <p>
          <code className="inline-block rounded bg-slate-100 px-2 py-1 break-all dark:bg-gray-800">
            {feedUrl}
          </code>
        </p>
        <p>
          and sign in with your email ({email}) and an app password made here — never your account password.
          An app password opens your library and its downloads, nothing else.
        </p>
      </div>

      {revoked?.notice ? <Notice>{revoked.notice}</Notice> : null}
      {revoked?.formError ? <FormError>{revoked.formError}</FormError> : null}

      {appPasswords.length > 0 ? (
        <ul
          aria-label="Your app passwords"
          className="flex flex-col divide-y divide-slate-200 dark:divide-gray-700"
        >
          {appPasswords.map((item) => (
            <li key={item.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
              <div>
                <p className="font-medium">{item.name}</p>
                <p className="text-sm text-slate-600 dark:text-slate-300">
                  Starts with <code>{item.hint}</code> · made <FormattedDate value={item.createdAt} /> ·{' '}
                  {item.lastUsedAt ? (
                    <>
                      last used <FormattedDate value={item.lastUsedAt} style="dateTime" />
                    </>
                  ) : (
                    'not used yet'
                  )}
                </p>
              </div>
              <Form method="post">
                <input type="hidden" name="intent" value="revoke-app-password" />
                <input type="hidden" name="appPasswordId" value={item.id} />
                <button
                  type="submit"
                  className={secondaryButton}
                  aria-label={`Revoke the app password ${item.name}`}
                >
                  Revoke
                </button>
              </Form>
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-slate-600 dark:text-slate-300">You have no app passwords.</p>
      )}

      {/* A new form after each password made: the name typed is cleared. */}
      <Form method="post" className="flex flex-col gap-4" key={created?.appPassword?.password ?? 'new'}>
        {created?.notice ? <Notice>{created.notice}</Notice> : null}
        {created?.appPassword ? <NewPassword password={created.appPassword.password} /> : null}
        {created?.formError ? <FormError>{created.formError}</FormError> : null}
        <input type="hidden" name="intent" value="create-app-password" />
        <TextField
          label="App name"
          name="appPasswordName"
          hint="Which app and device it is for, so you know what to revoke later."
          requiredMessage="Name the app this password is for"
          required
          maxLength={60}
          autoComplete="off"
          error={created?.fieldErrors?.appPasswordName}
        />
        <button type="submit" className={`${primaryButton} self-start`}>
          Create app password
        </button>
      </Form>
    </div>
  )
}

function NewPassword({ password }: { password: string }) {
  const [copied, setCopied] = useState(false)
  return (
    <div className="flex flex-wrap items-center gap-3">
      <p>
        <span className="sr-only">Your new app password: </span>
        <output
          aria-label="Your new app password"
          className="rounded-md border border-slate-400 bg-slate-50 px-3 py-2 font-mono text-lg tracking-wide select-all dark:border-gray-500 dark:bg-gray-800"
        >
          {password}
        </output>
      </p>
      <button
        type="button"
        className={secondaryButton}
        onClick={() => {
          void navigator.clipboard?.writeText(password).then(() => setCopied(true))
        }}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  )
}
