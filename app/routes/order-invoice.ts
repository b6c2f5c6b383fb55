import { data } from 'react-router'
import { errorData } from '#app/components/error-boundary.tsx'
import { getInvoicePdf, invoicePdfResponse } from '#app/features/invoices/invoices.server.ts'
import { getSessionUser } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/order-invoice'

/**
 * An order's invoice or credit note as a PDF download (issue 31), for the order's buyer only. Anyone else,
 * signed in or not, gets the same 404 as for a document that does not exist: a document's address says nothing
 * about whether it exists (a signed-out visitor is not sent to log in for it).
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const user = await getSessionUser({ request, context })
  const file = user
    ? await getInvoicePdf(getAppContext(context).db, {
        invoiceId: params.invoiceId,
        orderId: params.orderId,
        userId: user.id,
      })
    : null
  if (!file)
    throw data(errorData('Document not found', 'We could not find that invoice in your account.'), {
      status: 404,
    })
  return invoicePdfResponse(file)
}
