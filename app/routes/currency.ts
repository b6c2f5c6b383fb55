import { data, redirect } from 'react-router'
import { readCurrencyForm } from '#app/features/currency/buyer-currency.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/currency'

/**
 * The cart's and the checkout's currency form: the buyer's choice in a cookie, then back to the page (303). A
 * redirect with JavaScript too: the form navigates to this route, whose page is the one it came from.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const chosen = readCurrencyForm(await readForm(request), getAppContext(context))
  if (!chosen.ok) return data({ error: chosen.message }, { status: 400 })
  return redirect(chosen.redirectTo, { status: 303, headers: { 'Set-Cookie': chosen.setCookie } })
}

export function loader() {
  return redirect('/cart')
}
