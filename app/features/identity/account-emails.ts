import { escapeHtml } from '#app/server/escape-html.ts'

/**
 * The account mails' words (decision 017): plain text and a small HTML version of each, naming the store by
 * its settings' name (`store`).
 */
export type AccountEmail = { subject: string; text: string; html: string }

export function verifyEmailMessage(link: string, store: string): AccountEmail {
  return linkEmail({
    subject: `Confirm your ${store} email`,
    heading: 'Confirm your email',
    lines: [`Follow this link to confirm the email address of your ${store} account.`],
    action: 'Confirm my email',
    link,
    after: `The link works once and for 24 hours. If you did not register at ${store}, ignore this mail.`,
  })
}

export function confirmNewEmailMessage(link: string, newEmail: string, store: string): AccountEmail {
  return linkEmail({
    subject: `Confirm your new ${store} email`,
    heading: 'Confirm your new email',
    lines: [`Your ${store} account's email changes to ${newEmail} once you follow this link.`],
    action: 'Use this email',
    link,
    after:
      'The link works once and for 24 hours. If you did not ask for this, ignore this mail: nothing changes.',
  })
}

export function resetPasswordMessage(link: string, store: string): AccountEmail {
  return linkEmail({
    subject: `Reset your ${store} password`,
    heading: 'Reset your password',
    lines: [`Someone (we hope you) asked to reset the password of your ${store} account.`],
    action: 'Choose a new password',
    link,
    after:
      'The link works once and for 1 hour. If you did not ask for it, ignore this mail: your password stays as it is.',
  })
}

export function passwordChangedMessage(loginUrl: string, store: string): AccountEmail {
  return noticeEmail({
    subject: `Your ${store} password was changed`,
    heading: 'Your password was changed',
    lines: [
      `The password of your ${store} account was just changed, and every other session was signed out.`,
      `If this was not you, reset your password now from the login page: ${loginUrl}`,
    ],
  })
}

export function emailChangedMessage(newEmail: string, store: string): AccountEmail {
  return noticeEmail({
    subject: `Your ${store} email was changed`,
    heading: 'Your email was changed',
    lines: [
      `Your ${store} account now uses ${newEmail}; mail about your orders and books goes there.`,
      'If this was not you, reply to this mail and we will help you get your account back.',
    ],
  })
}

function linkEmail(mail: {
  subject: string
  heading: string
  lines: string[]
  action: string
  link: string
  after: string
}): AccountEmail {
  const text = [...mail.lines, '', `${mail.action}: ${mail.link}`, '', mail.after].join('\n')
  const html = page(
    mail.heading,
    `${mail.lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('')}
<p><a href="${escapeHtml(mail.link)}">${escapeHtml(mail.action)}</a></p>
<p>${escapeHtml(mail.after)}</p>`,
  )
  return { subject: mail.subject, text, html }
}

function noticeEmail(mail: { subject: string; heading: string; lines: string[] }): AccountEmail {
  return {
    subject: mail.subject,
    text: mail.lines.join('\n\n'),
    html: page(mail.heading, mail.lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('')),
  }
}

function page(heading: string, body: string) {
  return `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#0f172a">
<h1 style="font-size:20px">${escapeHtml(heading)}</h1>
${body}
</body></html>`
}
