import { index, route, type RouteConfig } from '@react-router/dev/routes'

// Every URL of the store. React Router matches paths case-insensitively, so the seed's mixed-case URLs
// (/AllBooks, /allbooks) all land here.
export default [
  index('routes/home.tsx'),
  route('AllBooks', 'routes/all-books.tsx'),
  route('books/:slug', 'routes/book.tsx'),
  // Topics: the index, and each topic's books with the catalogue's facets (docs/decisions/019).
  route('topics', 'routes/topics.tsx'),
  route('topics/:slug', 'routes/topic.tsx'),
  // Authors: each one's page, with their bio and books (the book page's byline links it).
  route('authors/:slug', 'routes/author.tsx'),
  // The seed's detail URLs, by position in its two hard-coded lists: redirect to the canonical book URL.
  route('Details/:index', 'routes/legacy-book-details.tsx', { id: 'legacy-featured-details' }),
  route('AllBooksDetails/:index', 'routes/legacy-book-details.tsx', { id: 'legacy-all-books-details' }),
  route('search', 'routes/search.tsx'),
  route('search/suggest', 'routes/search-suggest.ts'),
  route('cart', 'routes/cart.tsx'),
  route('CartDetails', 'routes/legacy-cart-details.tsx'),
  // A shareable coupon link: the code goes on the visitor's cart (issue 30).
  route('c/:code', 'routes/coupon-link.ts'),
  // Bundles (issue 30): several books at one price, each with its page and its cover collage.
  route('bundles/:slug', 'routes/bundle.tsx'),
  route('bundles/:slug/cover.png', 'routes/bundle-cover.ts'),
  // Gifts (issue 30): a book's or a bundle's gift form, the recipient's claim link, the buyer's list.
  route('gift/:kind/:slug', 'routes/gift.tsx'),
  route('gifts/claim/:token', 'routes/gift-claim.tsx'),
  route('account/gifts', 'routes/account-gifts.tsx'),
  route('theme', 'routes/theme.ts'),
  // The buyer's currency (issue 31), chosen on the cart or the checkout.
  route('currency', 'routes/currency.ts'),
  route('login', 'routes/login.tsx'),
  // The seed's /Register; /register matches too.
  route('Register', 'routes/register.tsx'),
  route('logout', 'routes/logout.tsx'),
  // The account lifecycle (docs/decisions/017-account-lifecycle.md).
  route('forgot-password', 'routes/forgot-password.tsx'),
  route('reset-password', 'routes/reset-password.tsx'),
  route('account', 'routes/account.tsx'),
  route('account/verify-email', 'routes/account-verify-email.tsx'),
  route('checkout', 'routes/checkout.tsx'),
  route('orders/:orderId', 'routes/order.tsx'),
  route('orders/:orderId/invoices/:invoiceId', 'routes/order-invoice.ts'),
  route('account/orders', 'routes/account-orders.tsx'),
  route('account/library', 'routes/library.tsx'),
  // The wishlist (issue 30): the heart's action, the reader's page, a shared one, and its mails' unsubscribe link.
  route('wishlist', 'routes/wishlist.tsx'),
  route('account/wishlist', 'routes/account-wishlist.tsx'),
  route('wishlists/:token', 'routes/shared-wishlist.tsx'),
  route('wishlist/unsubscribe/:token', 'routes/wishlist-unsubscribe.tsx'),
  // The online reader (issue 29): the owner's book, and every book's free sample; one page, two URLs.
  route('read/:slug', 'routes/read.tsx', { id: 'read-book' }),
  route('read/:slug/sample', 'routes/read.tsx', { id: 'read-sample' }),
  // Deleting one's account (a confirmation form) and downloading one's data (docs/decisions/018).
  route('account/delete', 'routes/account-delete.tsx'),
  route('account/export.json', 'routes/account-export.ts'),
  // Where GitHub or the OpenID Connect provider sends the browser back: only this URL of Better Auth's
  // handler is mounted (docs/decisions/018-sign-in-with-providers.md).
  route('api/auth/callback/:provider', 'routes/auth-callback.ts'),
  // Downloads: the owner's stamped copies, and every book's free sample.
  route('library/:slug/:file', 'routes/library-download.ts'),
  route('books/:slug/sample.pdf', 'routes/book-sample.ts'),
  // The online reader's files and its reader's state (issue 29): the owner's EPUB (not counted as a download)
  // and the sample's, where they are in it, their bookmarks and highlights; errata reported from it.
  route('read/:slug/:file', 'routes/read-epub.ts'),
  route('read/:slug/state.json', 'routes/read-state.ts'),
  route('read/:slug/position', 'routes/read-position.ts'),
  route('read/:slug/annotations', 'routes/read-annotations.ts'),
  route('read/:slug/annotations.md', 'routes/read-annotations-export.ts'),
  route('read/:slug/annotations/:id', 'routes/read-annotation.ts'),
  route('books/:slug/errata', 'routes/book-errata.ts'),
  // For crawlers and link previews (docs/decisions/020-seo.md): robots, the sitemaps, Open Graph images.
  route('opds/*', 'routes/opds.ts'),
  route('robots.txt', 'routes/robots-txt.ts'),
  route('sitemap.xml', 'routes/sitemap-index.ts'),
  route('sitemaps/:file', 'routes/sitemap-page.ts'),
  route('books/:slug/og.png', 'routes/book-og-image.ts'),
  // A book's cover as PNG, for reading apps that cannot draw the seed's SVG covers (OPDS feeds link it).
  route('books/:slug/cover.png', 'routes/book-cover-png.ts'),
  route('og-image.png', 'routes/og-image.ts'),
  // Stripe's signed payment events (docs/decisions/009-stripe-checkout.md).
  route('webhooks/stripe', 'routes/stripe-webhook.ts'),
  // Uploaded covers (the back office resizes them into AVIF, WebP and JPEG at a few widths).
  route('media/covers/:file', 'routes/media-cover.ts'),
  route('media/logo/:file', 'routes/media-logo.ts'),
  route('media/authors/:file', 'routes/media-author.ts'),
  // The site pages, written by the owner in the back office (/admin/pages): one module, the page by its path.
  ...['about', 'contact', 'terms', 'privacy', 'refunds', 'imprint'].map((slug) =>
    route(slug, 'routes/site-page.tsx', { id: `site-page-${slug}` }),
  ),
  // The back office: every URL under /admin answers 404 to anyone but an admin (the layout's guard).
  route('admin', 'routes/admin/layout.tsx', [
    index('routes/admin/overview.tsx'),
    route('books', 'routes/admin/books.tsx'),
    route('books/new', 'routes/admin/book-new.tsx'),
    route('books/:bookId', 'routes/admin/book-edit.tsx'),
    route('books/:bookId/cover', 'routes/admin/book-cover.ts'),
    route('books/:bookId/manuscript', 'routes/admin/book-manuscript.tsx'),
    route('orders', 'routes/admin/orders.tsx'),
    route('orders/export.csv', 'routes/admin/orders-export.ts'),
    route('orders/:orderId', 'routes/admin/order.tsx'),
    route('orders/:orderId/invoices/:invoiceId', 'routes/admin/order-invoice.ts'),
    route('analytics', 'routes/admin/analytics.tsx'),
    route('analytics/export.csv', 'routes/admin/analytics-export.ts'),
    // The accounts (issue 31): a period's money and tax, and the accountant's files for it.
    route('accounts', 'routes/admin/accounts.tsx'),
    ...['orders.csv', 'documents.csv', 'refunds.csv', 'tax.csv', 'accounts.xlsx'].map((file) =>
      route(`accounts/${file}`, 'routes/admin/accounts-export.ts', { id: `admin-accounts-${file}` }),
    ),
    route('audit', 'routes/admin/audit.tsx'),
    route('reviews', 'routes/admin/reviews.tsx'),
    route('coupons', 'routes/admin/coupons.tsx'),
    route('bundles', 'routes/admin/bundles.tsx'),
    route('bundles/:bundleId', 'routes/admin/bundle-edit.tsx'),
    route('errata', 'routes/admin/errata.tsx'),
    route('settings', 'routes/admin/settings.tsx'),
    route('tax', 'routes/admin/tax.tsx'),
    route('pages', 'routes/admin/pages.tsx'),
    route('pages/:slug', 'routes/admin/page-edit.tsx'),
    route('customers', 'routes/admin/customers.tsx'),
    route('customers/:userId', 'routes/admin/customer.tsx'),
    route('topics', 'routes/admin/topics.tsx'),
    route('authors', 'routes/admin/authors.tsx'),
    route('authors/:authorId', 'routes/admin/author-edit.tsx'),
    route('authors/:authorId/photo', 'routes/admin/author-photo.ts'),
  ]),
  route('*', 'routes/not-found.tsx'),
] satisfies RouteConfig
