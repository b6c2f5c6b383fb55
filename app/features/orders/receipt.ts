import { formatPrice } from '#app/features/catalog/format.ts'
import { sellerBlock, type Seller } from '#app/features/settings/store-settings.ts'
import { escapeHtml } from '#app/server/escape-html.ts'

export type ReceiptInput = {
  number: number
  lines: {
    title: string
    priceCents: number
    listPriceCents: number
    discountCents: number
    /** The bundle the book was bought in, if any. */
    bundleTitle?: string | null
  }[]
  totalCents: number
  /** What the coupon took off the list prices, and its code. */
  discountCents: number
  couponCode: string | null
  currency: string
  orderUrl: string
  /** A gift's order: the recipient's address (their books are theirs once they claim them). */
  giftFor?: string | null
  /** The invoice's PDF attached to the mail ('INV-2026-000042.pdf'), if the order has one. */
  invoiceFile?: string | null
}

/**
 * The receipt mailed after a purchase: order number, books, total and a link to the order, as text and HTML,
 * in the store's name and with the seller's legal name, address and contact email as far as the owner set them.
 */
export function receiptEmail(
  order: ReceiptInput,
  seller: Seller,
): { subject: string; text: string; html: string } {
  const price = (cents: number) => formatPrice(cents, order.currency)
  const store = seller.storeName
  const block = sellerBlock(seller)
  const subject = `Your ${store} receipt — order #${order.number}`
  const text = [
    `Thank you for your order #${order.number}.`,
    '',
    ...order.lines.map(
      (line) =>
        `- ${titleOf(line)}: ${line.discountCents > 0 ? `${price(line.listPriceCents)} − ${price(line.discountCents)} = ` : ''}${price(line.priceCents)}`,
    ),
    '',
    ...(order.discountCents > 0
      ? [
          `Subtotal: ${price(order.totalCents + order.discountCents)}`,
          `Coupon ${order.couponCode ?? ''}: −${price(order.discountCents)}`,
        ]
      : []),
    `Total: ${price(order.totalCents)}`,
    '',
    `Your order: ${order.orderUrl}`,
    ...(order.invoiceFile ? ['', `Your invoice is attached (${order.invoiceFile}).`] : []),
    '',
    order.giftFor
      ? `This is a gift: ${order.giftFor} receives a mail with the link that puts it in their library.`
      : `Your eBooks are in your ${store} library, ready to download.`,
    ...(block.text ? ['', block.text] : []),
  ].join('\n')
  const rows = order.lines
    .map(
      (line) =>
        `<tr><td style="padding:4px 12px 4px 0">${escapeHtml(titleOf(line))}</td><td style="padding:4px 0;text-align:right">${line.discountCents > 0 ? `<s>${escapeHtml(price(line.listPriceCents))}</s> ` : ''}${escapeHtml(price(line.priceCents))}</td></tr>`,
    )
    .join('')
  const discountRows =
    order.discountCents > 0
      ? `<tr><td style="padding:8px 12px 0 0">Subtotal</td><td style="padding:8px 0 0;text-align:right">${escapeHtml(price(order.totalCents + order.discountCents))}</td></tr>
<tr><td style="padding:4px 12px 0 0">Coupon ${escapeHtml(order.couponCode ?? '')}</td><td style="padding:4px 0 0;text-align:right">−${escapeHtml(price(order.discountCents))}</td></tr>`
      : ''
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#0f172a">
<h1 style="font-size:20px">Thank you for your order #${order.number}</h1>
<table style="border-collapse:collapse">${rows}${discountRows}
<tr><th style="padding:8px 12px 0 0;text-align:left">Total</th><th style="padding:8px 0 0;text-align:right">${escapeHtml(price(order.totalCents))}</th></tr></table>
<p><a href="${escapeHtml(order.orderUrl)}">View your order</a></p>
${order.invoiceFile ? `<p>Your invoice is attached (${escapeHtml(order.invoiceFile)}).</p>\n` : ''}<p>${order.giftFor ? `This is a gift: ${escapeHtml(order.giftFor)} receives a mail with the link that puts it in their library.` : `Your eBooks are in your ${escapeHtml(store)} library, ready to download.`}</p>
${block.html}</body></html>`
  return { subject, text, html }
}

function titleOf(line: ReceiptInput['lines'][number]): string {
  return line.bundleTitle ? `${line.title} (bundle: ${line.bundleTitle})` : line.title
}
