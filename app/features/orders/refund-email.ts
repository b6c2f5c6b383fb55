import { formatPrice } from '#app/features/catalog/format.ts'
import { sellerBlock, type Seller } from '#app/features/settings/store-settings.ts'
import { escapeHtml } from '#app/server/escape-html.ts'

export type RefundEmailInput = {
  number: number
  /** What this refund gives back, in all. */
  amountCents: number
  currency: string
  /** The whole order is refunded now (nothing of it is left to refund). */
  wholeOrder: boolean
  /** The lines this refund gives money back for, and how much of each. */
  lines: { title: string; amountCents: number }[]
  /** The books that leave the buyer's library with it (their lines refunded in full). */
  revoked: { title: string }[]
  /** The credit note attached, if the order was invoiced ('CN-2026-000003.pdf'). */
  creditNoteFile: string | null
  orderUrl: string
}

/**
 * The mail a buyer gets once money has gone back for an order, the whole of it or a part: how much, for which
 * books, which books left the library (a book leaves only once its line is refunded in full), and the credit note
 * attached when the order had an invoice; in the store's name, with the seller's identity as far as the owner set it.
 */
export function refundEmail(
  refund: RefundEmailInput,
  seller: Seller,
): { subject: string; text: string; html: string } {
  const price = (cents: number) => formatPrice(cents, refund.currency)
  const store = seller.storeName
  const block = sellerBlock(seller)
  const subject = `Your ${store} refund — order #${refund.number}`
  const opening = refund.wholeOrder
    ? `Your order #${refund.number} has been refunded`
    : `Part of your order #${refund.number} has been refunded`
  const money = refund.amountCents > 0 ? `: ${price(refund.amountCents)} is on its way back to you.` : '.'
  const text = [
    `${opening}${money}`,
    ...(refund.lines.length > 0
      ? ['', 'Refunded:', ...refund.lines.map((line) => `- ${line.title}: ${price(line.amountCents)}`)]
      : []),
    ...(refund.revoked.length > 0
      ? [
          '',
          `These eBooks have left your ${store} library:`,
          ...refund.revoked.map((line) => `- ${line.title}`),
        ]
      : []),
    ...(refund.creditNoteFile ? ['', `Your credit note is attached (${refund.creditNoteFile}).`] : []),
    '',
    `Your order: ${refund.orderUrl}`,
    ...(refund.amountCents > 0 ? ['', 'Your bank may take a few days to show the money.'] : []),
    ...(block.text ? ['', block.text] : []),
  ].join('\n')
  const list = (items: string[]) => `<ul>${items.map((item) => `<li>${item}</li>`).join('')}</ul>`
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#0f172a">
<h1 style="font-size:20px">${escapeHtml(opening)}</h1>
${refund.amountCents > 0 ? `<p>${escapeHtml(price(refund.amountCents))} is on its way back to you.</p>\n` : ''}${
    refund.lines.length > 0
      ? `<p>Refunded:</p>${list(refund.lines.map((line) => `${escapeHtml(line.title)}: ${escapeHtml(price(line.amountCents))}`))}\n`
      : ''
  }${
    refund.revoked.length > 0
      ? `<p>These eBooks have left your ${escapeHtml(store)} library:</p>${list(refund.revoked.map((line) => escapeHtml(line.title)))}\n`
      : ''
  }${refund.creditNoteFile ? `<p>Your credit note is attached (${escapeHtml(refund.creditNoteFile)}).</p>\n` : ''}<p><a href="${escapeHtml(refund.orderUrl)}">View your order</a></p>
${refund.amountCents > 0 ? '<p>Your bank may take a few days to show the money.</p>\n' : ''}${block.html}</body></html>`
  return { subject, text, html }
}
