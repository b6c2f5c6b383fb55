import { formatPrice } from '#app/features/catalog/format.ts'
import { countryName } from '#app/features/tax/countries.ts'
import { describeEvidence } from '#app/features/tax/evidence.ts'
import type { AdminOrderDetail } from './admin-order.server.ts'

/** The buyer's name, when it says more than their email (an account registered by email is named by it). */
function nameBesideEmail(buyer: { name: string; email: string }): string | null {
  const name = buyer.name.trim()
  return name && name.toLowerCase() !== buyer.email.toLowerCase() ? name : null
}

/**
 * The back office's order page, as the page shows it: amounts in the order's currency, instants as ISO strings,
 * the tax charged and the evidence of where the buyer was in words, each document's download.
 */
export function adminOrderView(order: AdminOrderDetail) {
  const iso = (date: Date | null) => date?.toISOString() ?? null
  const price = (cents: number) => formatPrice(cents, order.currency)
  return {
    id: order.id,
    number: order.number,
    status: order.status,
    total: formatPrice(order.totalCents, order.currency),
    createdAt: order.createdAt.toISOString(),
    buyer: { ...order.buyer, name: nameBesideEmail(order.buyer) },
    payment: {
      provider: order.paymentProvider,
      reference: order.paymentReference,
      card: order.cardBrand && order.cardLast4 ? `${order.cardBrand} ending ${order.cardLast4}` : null,
      paidAt: iso(order.paidAt),
      failureReason: order.failureReason,
    },
    tax: {
      charged: order.reverseCharge
        ? 'Reverse charge (the buyer accounts for the VAT)'
        : order.taxCountry
          ? `${price(order.taxCents)} (${countryName(order.taxCountry)})`
          : 'None',
      evidence: describeEvidence(order),
    },
    refund: {
      requestedAt: iso(order.refundRequestedAt),
      reference: order.refundReference,
      refundedAt: iso(order.refundedAt),
    },
    canRefund: order.canRefund,
    currency: order.currency,
    left: price(order.leftCents),
    refunds: order.refunds.map((refund) => ({
      id: refund.id,
      status: refund.status,
      amount: price(refund.amountCents),
      lines: refund.lines.map((line) => `${line.title}: ${price(line.amountCents)}`),
      reason: refund.reason,
      requestedBy: refund.requestedBy,
      requestedAt: refund.requestedAt.toISOString(),
      confirmedAt: iso(refund.confirmedAt),
      creditNote: refund.creditNote,
    })),
    documents: order.documents.map((document) => ({
      id: document.id,
      kind: document.kind,
      number: document.number,
      issuedAt: document.issuedAt.toISOString(),
      total: formatPrice(document.totalCents, document.currency),
      href: `/admin/orders/${order.id}/invoices/${document.id}`,
    })),
    missingInvoice: order.missingInvoice?.message ?? null,
    lines: order.lines.map((line) => ({
      bookId: line.bookId,
      title: line.title,
      price: formatPrice(line.priceCents, line.currency),
      refunded: line.refundedCents > 0 ? formatPrice(line.refundedCents, line.currency) : null,
      leftCents: line.leftCents,
      left: formatPrice(line.leftCents, line.currency),
      library:
        line.library.kind === 'none' || line.library.kind === 'revoked'
          ? { kind: line.library.kind }
          : {
              kind: line.library.kind,
              downloadCount: line.library.downloadCount,
              lastDownloadedAt: iso(line.library.lastDownloadedAt),
            },
    })),
    mail: order.mail.map((mail) => ({
      id: mail.id,
      kind: mail.kind,
      to: mail.to,
      subject: mail.subject,
      attempts: mail.attempts,
      state: mail.state,
      sentAt: iso(mail.sentAt),
      lastError: mail.lastError,
    })),
  }
}
