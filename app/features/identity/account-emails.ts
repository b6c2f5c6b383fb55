/** The account mails' words (decision 017): plain text and a small HTML version of each. */
export type AccountEmail = { subject: string; text: string; html: string }

export function verifyEmailMessage(link: string): AccountEmail {
  return linkEmail({
    subject: 'Confirm your CodeBook email',
    heading: 'Confirm your email',
    lines: ['Follow this link to confirm the email address of your CodeBook account.'],
    action: 'Confirm my email',
    link,
    after: 'The link works once and for 24 hours. If you did not register at CodeBook, ignore this mail.',
  })
}

export function confirmNewEmailMessage(link: string, newEmail: string): AccountEmail {
  return linkEmail({
    subject: 'Confirm your new CodeBook email',
    heading: 'Confirm your new email',
    lines: [`Your CodeBook account's email changes to ${newEmail} once you follow this link.`],
    action: 'Use this email',
    link,
    after:
      'The link works once and for 24 hours. If you did not ask for this, ignore this mail: nothing changes.',
  })
}

export function resetPasswordMessage(link: string): AccountEmail {
  return linkEmail({
    subject: 'Reset your CodeBook password',
    heading: 'Reset your password',
    lines: ['Someone (we hope you) asked to reset the password of your CodeBook account.'],
    action: 'Choose a new password',
    link,
    after:
      'The link works once and for 1 hour. If you did not ask for it, ignore this mail: your password stays as it is.',
  })
}

export function passwordChangedMessage(loginUrl: string): AccountEmail {
  return noticeEmail({
    subject: 'Your CodeBook password was changed',
    heading: 'Your password was changed',
    lines: [
      'The password of your CodeBook account was just changed, and every other session was signed out.',
      `If this was not you, reset your password now from the login page: ${loginUrl}`,
    ],
  })
}

export function emailChangedMessage(newEmail: string): AccountEmail {
  return noticeEmail({
    subject: 'Your CodeBook email was changed',
    heading: 'Your email was changed',
    lines: [
      `Your CodeBook account now uses ${newEmail}; mail about your orders and books goes there.`,
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

function escapeHtml(value: string) {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
