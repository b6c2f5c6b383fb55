import type { SitePageSlug } from './site-pages.ts'

/**
 * The pages' starting texts: what the store actually does (README, docs/how-it-works.md, decisions 014, 015 and
 * 018), for the owner to adapt. The placeholders in double braces are filled from the store settings.
 */
export const defaultPageBodies: Record<SitePageSlug, string> = {
  about: `{{storeName}} is an online store for computer-science eBooks: backend and frontend development, programming languages, frameworks and design systems.

Every book is a DRM-free download in PDF and EPUB, stamped with the buyer's email, ready in your library the moment the payment is confirmed. When a book gets a new edition, the owners of the book get it too and are told by email.

Ratings and reviews come from readers who bought the book.

{{storeName}} is run by {{legalName}}. Questions, corrections and suggestions are welcome at {{contactEmail}}.`,

  contact: `Write to {{contactEmail}} for anything about an order, a download, a refund or your account. Please give your order number if your question is about an order.

Postal address:

{{legalName}}, {{postalAddress}}`,

  terms: `These terms apply to every purchase made at {{storeName}}, sold by {{legalName}}, {{postalAddress}}.

### What you buy

A personal licence to read the eBook you bought, on your own devices, in the formats offered (PDF and EPUB). The files are DRM-free and stamped with your email address; please do not share them.

### Payment

Prices are shown in the book's currency and charged once, at checkout. Card payments are handled by our payment processor; the store never sees or stores your card number.

### Delivery

The books are in your library (Account › Library) as soon as the payment is confirmed, and stay there, with each new edition, for as long as your account exists.

### Refunds

See the [refund policy](/refunds).

### Contact

{{contactEmail}}`,

  privacy: `This page says what {{storeName}} stores about you, why, and for how long. The controller is {{legalName}}, {{postalAddress}}, reachable at {{contactEmail}}.

### Cookies

The store sets no cookies for tracking or advertising, and loads no third-party scripts. It sets only these:

- the session cookie (\`better-auth.session_token\`), while you are signed in or shopping as a guest: it keeps you signed in for up to 7 days;
- the cart cookie (\`cb_cart\`), which keeps the cart of a visitor who is not signed in, for up to 30 days;
- the theme cookie (\`cb_theme\`), which remembers light, dark or system theme for a year;
- a one-minute cookie (\`cb_cart_added\`), set only when a book is added to the cart without JavaScript, so that the next page can say so; it is deleted as soon as that page is shown.
- at checkout, the billing country you chose (\`billing-country\`) and, if you gave one, your business's EU VAT number (\`vat-number\`), for a year, so that the next checkout is priced for them.

### What we store

- Your account: email, a hash of your password (never the password itself), the sessions you signed in with.
- Your orders, the books in your library, your reviews.
- For tax, with each order: the billing country you chose, the country of your IP address (looked up in a database kept on our own server, never sent anywhere; the address itself is not stored), the country of the card you paid with (as the payment provider reports it), and your business's VAT number if you gave one; and the name and address you asked the invoice to be made out to, if you gave them. Tax law requires us to keep this evidence with the order. The country lookup uses GeoLite2 data created by MaxMind, available from https://www.maxmind.com.
- Store statistics: page views and store events counted by the store itself, without your IP address or user agent, under a visitor id that changes every day and cannot be traced back to you. Do Not Track and Global Privacy Control are honoured. Raw events are deleted after 400 days; only daily totals are kept.

### Payments

When paying by card, the payment is handled by Stripe, our payment processor, who receives what it needs to take the payment.

### Your rights

On your account page you can download everything we hold about you (a JSON export) and delete your account. Deleting it deletes your account, sessions, cart, library and reviews; your orders are kept, as the law requires for accounting, under an address that no longer names you.

For any question about your data, write to {{contactEmail}}.`,

  refunds: `Not happy with a book? Ask for a refund within 14 days of the purchase by writing to {{contactEmail}} with your order number.

The owner refunds the order from the store's back office: the amount goes back to the card you paid with, the book leaves your library, and you receive an email confirming the refund.

A refund can be the whole order or some of its books (each refund comes with a credit note); books that were downloaded can still be refunded within the 14 days.`,

  imprint: `{{storeName}} is operated by:

{{legalName}}

{{postalAddress}}

Email: {{contactEmail}}

Responsible for the content of this site: {{legalName}}.`,
}
