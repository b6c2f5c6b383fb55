import { escapeHtml } from '#app/server/escape-html.ts'

export type GiftEmailInput = {
  /** The buyer's name as their account has it, or 'A reader'. */
  from: string
  recipientName: string
  message: string
  /** The bundle's title, or the book's. */
  what: string
  titles: string[]
  claimUrl: string
}

/**
 * The mail that delivers a gift: who it is from, their message, the books, and the link that puts them in the
 * recipient's library (signing in or making an account on the way).
 */
export function giftEmail(gift: GiftEmailInput): { subject: string; text: string; html: string } {
  const subject = `${gift.from} sent you an eBook gift: ${gift.what}`
  const hello = gift.recipientName ? `Hello ${gift.recipientName},` : 'Hello,'
  const text = [
    hello,
    '',
    `${gift.from} gave you ${gift.titles.length === 1 ? 'an eBook' : `${gift.titles.length} eBooks`} at CodeBook:`,
    ...gift.titles.map((title) => `- ${title}`),
    ...(gift.message ? ['', `Their message: ${gift.message}`] : []),
    '',
    `Add ${gift.titles.length === 1 ? 'it' : 'them'} to your library (log in or make a free account on the way):`,
    gift.claimUrl,
    '',
    'The link is yours: whoever follows it first and signs in receives the gift.',
  ].join('\n')
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#0f172a">
<p>${escapeHtml(hello)}</p>
<p>${escapeHtml(gift.from)} gave you ${gift.titles.length === 1 ? 'an eBook' : `${gift.titles.length} eBooks`} at CodeBook:</p>
<ul>${gift.titles.map((title) => `<li>${escapeHtml(title)}</li>`).join('')}</ul>
${gift.message ? `<blockquote style="border-left:3px solid #94a3b8;margin:0;padding-left:12px">${escapeHtml(gift.message)}</blockquote>` : ''}
<p><a href="${escapeHtml(gift.claimUrl)}">Add ${gift.titles.length === 1 ? 'it' : 'them'} to your library</a> (log in or make a free account on the way).</p>
<p style="color:#475569;font-size:14px">The link is yours: whoever follows it first and signs in receives the gift.</p>
</body></html>`
  return { subject, text, html }
}
