import { escapeHtml } from '#app/server/escape-html.ts'

/** The mail that carries a reader's stamped EPUB to their Kindle (Amazon reads the attachment, not the words). */
export function kindleEmail(input: { title: string; author: string; email: string }): {
  subject: string
  text: string
  html: string
} {
  const { title, author, email } = input
  const subject = title
  const text = [
    `${title} by ${author} is attached, as an EPUB prepared for ${email}.`,
    '',
    'Amazon adds it to your Kindle library within a few minutes. You asked for it from your CodeBook library.',
  ].join('\n')
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#0f172a">
<p><strong>${escapeHtml(title)}</strong> by ${escapeHtml(author)} is attached, as an EPUB prepared for ${escapeHtml(email)}.</p>
<p>Amazon adds it to your Kindle library within a few minutes. You asked for it from your CodeBook library.</p>
</body></html>`
  return { subject, text, html }
}
