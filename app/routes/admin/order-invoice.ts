import { data } from 'react-router'
import { errorData } from '#app/components/error-boundary.tsx'
import { getInvoicePdf, invoicePdfResponse } from '#app/features/invoices/invoices.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/order-invoice'

/** An order's invoice or credit note as issued, for the back office (whoever the buyer is, or was). */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const file = await getInvoicePdf(getAppContext(context).db, {
    invoiceId: params.invoiceId,
    orderId: params.orderId,
  })
  if (!file)
    throw data(errorData('Document not found', 'This order has no such invoice or credit note.'), {
      status: 404,
    })
  return invoicePdfResponse(file)
}
