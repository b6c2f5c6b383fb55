import { formatPrice } from '#app/features/catalog/format.ts'

export type RefundEmailInput = {
  number: number
  lines: { title: string }[]
  totalCents: number
  currency: string
  orderUrl: string
}

/** The mail a buyer gets once an order's money has gone back: which books left the library, and how much. */
export function refundEmail(order: RefundEmailInput): { subject: string; text: string; html: string } {
  const total = formatPrice(order.totalCents, order.currency)
  const subject = `Your CodeBook refund — order #${order.number}`
  const text = [
    `Your order #${order.number} has been refunded: ${total} is on its way back to you.`,
    '',
    'These eBooks have left your CodeBook library:',
    ...order.lines.map((line) => `- ${line.title}`),
    '',
    `Your order: ${order.orderUrl}`,
    '',
    'Your bank may take a few days to show the money.',
  ].join('\n')
  const items = order.lines.map((line) => `<li>${escapeHtml(line.title)}</li>`).join('')
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#0f172a">
<h1 style="font-size:20px">Order #${order.number} has been refunded</h1>
<p>${escapeHtml(total)} is on its way back to you.</p>
<p>These eBooks have left your CodeBook library:</p>
<ul>${items}</ul>
<p><a href="${escapeHtml(order.orderUrl)}">View your order</a></p>
<p>Your bank may take a few days to show the money.</p>
</body></html>`
  return { subject, text, html }
}

function escapeHtml(value: string) {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
