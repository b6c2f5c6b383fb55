import { formatPrice } from '#app/features/catalog/format.ts'
import { escapeHtml } from '#app/server/escape-html.ts'

export type WishedBook = { title: string; url: string; priceCents: number; currency: string }

/** What the mail is about: books now cheaper than their reader knew, or a coupon on some of their books. */
export type WishlistNews =
  | { kind: 'price-drop'; books: Array<WishedBook & { wasCents: number }> }
  | { kind: 'coupon'; code: string; discount: string; endsAt: Date | null; books: WishedBook[] }

/** The mail telling a reader of lower prices on their wishlist, as text and HTML, with its unsubscribe link. */
export function wishlistEmail(input: {
  news: WishlistNews
  wishlistUrl: string
  unsubscribeUrl: string
  store: string
}): { subject: string; text: string; html: string } {
  const { news, wishlistUrl, unsubscribeUrl, store } = input
  const price = (book: WishedBook) => formatPrice(book.priceCents, book.currency)
  const subject =
    news.kind === 'price-drop'
      ? news.books.length === 1
        ? `${news.books[0]!.title} is now ${price(news.books[0]!)} at ${store}`
        : `${news.books.length} eBooks on your wishlist are cheaper at ${store}`
      : `Coupon ${news.code}: ${news.discount} on eBooks on your wishlist`
  const intro =
    news.kind === 'price-drop'
      ? 'Good news: eBooks on your wishlist cost less now.'
      : `Use coupon ${news.code} for ${news.discount} on these eBooks on your wishlist${
          news.endsAt ? ` (until ${news.endsAt.toISOString().slice(0, 10)})` : ''
        }:`
  const line = (book: WishedBook | (WishedBook & { wasCents: number })) =>
    'wasCents' in book
      ? `${book.title}: ${price(book)} (was ${formatPrice(book.wasCents, book.currency)})`
      : `${book.title}: ${price(book)}`
  const text = [
    intro,
    '',
    ...news.books.map((book) => `- ${line(book)}\n  ${book.url}`),
    '',
    `Your wishlist: ${wishlistUrl}`,
    '',
    `You get these mails because you asked for them on your ${store} wishlist (at most one a day).`,
    `To stop them: ${unsubscribeUrl}`,
  ].join('\n')
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#0f172a">
<h1 style="font-size:20px">${escapeHtml(news.kind === 'price-drop' ? 'Lower prices on your wishlist' : `Coupon ${news.code} for your wishlist`)}</h1>
<p>${escapeHtml(intro)}</p>
<ul>${news.books.map((book) => `<li><a href="${escapeHtml(book.url)}">${escapeHtml(line(book))}</a></li>`).join('')}</ul>
<p><a href="${escapeHtml(wishlistUrl)}">See your wishlist</a></p>
<p style="font-size:13px;color:#475569">You get these mails because you asked for them on your ${escapeHtml(store)} wishlist (at most one a day). <a href="${escapeHtml(unsubscribeUrl)}">Stop these emails</a>.</p>
</body></html>`
  return { subject, text, html }
}
