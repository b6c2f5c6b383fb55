import { escapeHtml } from '#app/server/escape-html.ts'

/** The mail sent to the address an account had, once it is deleted. */
export function accountDeletedEmail(store: string): { subject: string; text: string; html: string } {
  const subject = `Your ${store} account has been deleted`
  const text = [
    `Your ${store} account has been deleted, as you asked.`,
    '',
    'Your sign-in details, cart, library and profile are gone. Your orders are kept for our accounts, as the law',
    'requires, but they no longer carry your email address.',
    '',
    'If you did not ask for this, reply to this mail.',
  ].join('\n')
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#0f172a">
<h1 style="font-size:20px">Your ${escapeHtml(store)} account has been deleted</h1>
<p>Your ${escapeHtml(store)} account has been deleted, as you asked.</p>
<p>Your sign-in details, cart, library and profile are gone. Your orders are kept for our accounts, as the law
requires, but they no longer carry your email address.</p>
<p>If you did not ask for this, reply to this mail.</p>
</body></html>`
  return { subject, text, html }
}
