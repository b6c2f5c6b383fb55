import { escapeHtml } from '#app/server/escape-html.ts'

/** The mail telling an owner that a new edition of their book is in their library, as text and HTML. */
export function newEditionEmail(input: {
  title: string
  edition: number
  changelog: string
  libraryUrl: string
  /** The store's name, from its settings. */
  store: string
}): { subject: string; text: string; html: string } {
  const { title, edition, changelog, libraryUrl, store } = input
  const subject = `A new edition of ${title} is in your ${store} library`
  const text = [
    `Edition ${edition} of ${title} is now in your ${store} library.`,
    '',
    'What changed:',
    changelog,
    '',
    `Download it as PDF or EPUB: ${libraryUrl}`,
    '',
    'Your copy is prepared for you, like the first; the earlier edition you downloaded stays yours.',
  ].join('\n')
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#0f172a">
<h1 style="font-size:20px">Edition ${edition} of ${escapeHtml(title)} is in your library</h1>
<p><strong>What changed:</strong></p>
<p style="white-space:pre-line">${escapeHtml(changelog)}</p>
<p><a href="${escapeHtml(libraryUrl)}">Download it from your library</a> as PDF or EPUB.</p>
<p>Your copy is prepared for you, like the first; the earlier edition you downloaded stays yours.</p>
</body></html>`
  return { subject, text, html }
}
