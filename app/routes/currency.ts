import { data, redirect } from 'react-router'
import { readCurrencyForm } from '#app/features/currency/buyer-currency.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { isDataRequest } from '#app/server/data-request.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/currency'

/** The cart's and the checkout's currency form: the buyer's choice in a cookie, then back to the page (303). */
export async function action({ request, url, context }: Route.ActionArgs) {
  const chosen = readCurrencyForm(await readForm(request), getAppContext(context))
  if (!chosen.ok) return data({ error: chosen.message }, { status: 400 })
  const headers = { 'Set-Cookie': chosen.setCookie }
  if (isDataRequest(request, url)) return data({ currency: chosen.currency }, { headers })
  return redirect(chosen.redirectTo, { status: 303, headers })
}

export function loader() {
  return redirect('/cart')
}
