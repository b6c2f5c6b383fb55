import type { Response as ExpressResponse } from 'express'

/**
 * An answer the host gives itself where React Router renders no page of the store: a small self-contained page
 * (no script, no stylesheet that could fail too), or JSON `{ error }` for a client that asked for JSON.
 */
export function sendErrorPage(
  res: ExpressResponse,
  answer: {
    status: number
    title: string
    message: string
    asPage: boolean
    /** Where the page leads on. */
    link: { href: string; text: string }
  },
) {
  const { status, title, message, link } = answer
  res.status(status)
  if (!answer.asPage) {
    res.json({ error: `${title}: ${message}` })
    return
  }
  res.type('html').send(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>${title}</title>
</head>
<body>
<main>
<h1>${title}</h1>
<p>${message}</p>
<p><a href="${escapeAttribute(link.href)}">${link.text}</a></p>
</main>
</body>
</html>
`)
}

/**
 * The answer to a method an address does not take (a POST to /robots.txt), for which React Router's own was
 * `{"message":"Unexpected Server Error"}` (issue 28). `allow`: the methods it takes. The store's error page
 * (app/components/error-boundary.tsx) says the same.
 */
export function sendMethodNotAllowed(res: ExpressResponse, allow: string, asPage: boolean) {
  res.set('Allow', allow)
  sendErrorPage(res, {
    status: 405,
    title: '405 Method Not Allowed',
    message: 'This address does not take that kind of request.',
    asPage,
    link: { href: '/AllBooks', text: 'Browse all eBooks' },
  })
}

function escapeAttribute(value: string) {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('"', '&quot;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
}
