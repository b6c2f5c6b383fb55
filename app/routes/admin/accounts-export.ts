import {
  accountsCsv,
  accountsFileName,
  accountsWorkbook,
  type AccountsFile,
} from '#app/features/accounts/exports.server.ts'
import { readAccountsPeriod } from '#app/features/accounts/period.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { csvResponse } from '#app/server/csv.server.ts'
import { xlsxResponse } from '#app/server/xlsx.server.ts'
import type { Route } from './+types/accounts-export'

/** The URL's file name (app/routes.ts lists each) → what it holds. */
const FILES: Record<string, AccountsFile | 'workbook'> = {
  'orders.csv': 'orders',
  'documents.csv': 'documents',
  'refunds.csv': 'refunds',
  'tax.csv': 'tax',
  'accounts.xlsx': 'workbook',
}

/**
 * /admin/accounts/<file>?<the page's period>: one of the accountant's files for the period /admin/accounts
 * shows, streamed. A bad period → 400 naming what is wrong.
 */
export async function loader({ request, context, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const file = FILES[url.pathname.split('/').at(-1) ?? '']
  if (!file) throw new Response('Not found', { status: 404 })
  const { resolved } = readAccountsPeriod(url.searchParams)
  if (!resolved.ok)
    return new Response(`${Object.values(resolved.errors).join('\n')}\n`, {
      status: 400,
      headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'private, no-store' },
    })
  const { db } = getAppContext(context)
  const { period } = resolved
  return file === 'workbook'
    ? xlsxResponse(accountsWorkbook(db, period), accountsFileName(period, file))
    : csvResponse(accountsCsv(db, period, file), accountsFileName(period, file))
}
