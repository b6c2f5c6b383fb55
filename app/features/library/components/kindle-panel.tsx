import { Form, Link } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { TextField } from '#app/components/ui/text-field.tsx'
import {
  FormError,
  linkClass,
  Notice,
  secondaryButton,
} from '#app/features/identity/components/account-notice.tsx'

type Answer = { notice?: string; formError?: string; fieldErrors?: { kindleAddress?: string } }

/**
 * The account page's 'Send to Kindle' panel (issue 33): the reader's Kindle address, and what they must do at
 * Amazon for our mail to be let through. Sending is on each book of the library.
 */
export function KindlePanel({
  address,
  sender,
  maxSize,
  saved,
  removed,
}: {
  address: string | null
  /** The store's From address, which Amazon must be told to accept. */
  sender: string
  /** The largest EPUB we mail, e.g. '20 MB'. */
  maxSize: string
  saved: Answer | undefined
  removed: Answer | undefined
}) {
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-col gap-2 text-sm">
        <p>
          Send the books in{' '}
          <Link to="/account/library" className={linkClass}>
            your library
          </Link>{' '}
          to your Kindle by email, as EPUB files of up to {maxSize}. Each copy is prepared for you, as a
          download is.
        </p>
        <p>
          Amazon delivers only mail from addresses you approve. In Amazon’s{' '}
          <em>Manage Your Content and Devices</em> → <em>Preferences</em> →{' '}
          <em>Personal Document Settings</em>, add{' '}
          <code className="rounded bg-slate-100 px-1.5 py-0.5 break-all dark:bg-gray-800">{sender}</code> to
          the approved list; your Kindle’s address is shown there too.
        </p>
      </div>

      {removed?.notice ? <Notice>{removed.notice}</Notice> : null}
      {removed?.formError ? <FormError>{removed.formError}</FormError> : null}

      <Form method="post" className="flex flex-col gap-4" key={address ?? 'none'}>
        {saved?.notice ? <Notice>{saved.notice}</Notice> : null}
        {saved?.formError ? <FormError>{saved.formError}</FormError> : null}
        <input type="hidden" name="intent" value="save-kindle-address" />
        <TextField
          label="Your Kindle’s email address"
          name="kindleAddress"
          type="email"
          inputMode="email"
          autoComplete="off"
          spellCheck={false}
          defaultValue={address ?? ''}
          placeholder="name@kindle.com"
          hint="It ends in @kindle.com."
          requiredMessage="Enter your Kindle’s email address"
          required
          maxLength={254}
          error={saved?.fieldErrors?.kindleAddress}
        />
        <div className="flex flex-wrap gap-3">
          <button type="submit" className={primaryButton}>
            Save Kindle address
          </button>
        </div>
      </Form>
      {address ? (
        <Form method="post">
          <input type="hidden" name="intent" value="remove-kindle-address" />
          <button type="submit" className={secondaryButton}>
            Remove Kindle address
          </button>
        </Form>
      ) : null}
    </div>
  )
}
