import { formatPrice } from '#app/features/catalog/format.ts'
import { sellerBlock, type Seller } from '#app/features/settings/store-settings.ts'
import { escapeHtml } from '#app/server/escape-html.ts'

export type RefundEmailInput = {
  number: number
  lines: { title: string }[]
  totalCents: number
  currency: string
  orderUrl: string
}

/**
 * The mail a buyer gets once an order's money has gone back: which books left the library, and how much, in
 * the store's name and with the seller's identity as far as the owner set it.
 */
export function refundEmail(
  order: RefundEmailInput,
  seller: Seller,
): { subject: string; text: string; html: string } {
  const total = formatPrice(order.totalCents, order.currency)
  const store = seller.storeName
  const block = sellerBlock(seller)
  const subject = `Your ${store} refund — order #${order.number}`
  const text = [
    `Your order #${order.number} has been refunded: ${total} is on its way back to you.`,
    '',
    `These eBooks have left your ${store} library:`,
    ...order.lines.map((line) => `- ${line.title}`),
    '',
    `Your order: ${order.orderUrl}`,
    '',
    'Your bank may take a few days to show the money.',
    ...(block.text ? ['', block.text] : []),
  ].join('\n')
  const items = order.lines.map((line) => `<li>${escapeHtml(line.title)}</li>`).join('')
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#0f172a">
<h1 style="font-size:20px">Order #${order.number} has been refunded</h1>
<p>${escapeHtml(total)} is on its way back to you.</p>
<p>These eBooks have left your ${escapeHtml(store)} library:</p>
<ul>${items}</ul>
<p><a href="${escapeHtml(order.orderUrl)}">View your order</a></p>
<p>Your bank may take a few days to show the money.</p>
${block.html}</body></html>`
  return { subject, text, html }
}
