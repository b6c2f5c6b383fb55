/** The money of each day, kept by the database itself (issue 31, docs/decisions/039). */
import { bigint, date, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'

/**
 * Per UTC day and currency: the orders paid that day (count, and sums of their total, net and tax) and the
 * refunds confirmed that day (count, and sums of their amount, net and tax). Triggers on `orders` and
 * `order_refunds` (migration 0036) add and take back each row's share in the transaction that writes it,
 * whoever writes it (checkout, the refund code, Stripe's webhook, a script), so the dashboard's and the front
 * page's money costs a few hundred rows whatever the number of orders. The accounts in another time zone than
 * UTC read the orders and refunds themselves (features/accounts/revenue.server.ts).
 */
export const revenueDaily = pgTable(
  'revenue_daily',
  {
    day: date('day', { mode: 'string' }).notNull(),
    currency: text('currency').notNull(),
    orders: integer('orders').notNull().default(0),
    grossCents: bigint('gross_cents', { mode: 'number' }).notNull().default(0),
    netCents: bigint('net_cents', { mode: 'number' }).notNull().default(0),
    taxCents: bigint('tax_cents', { mode: 'number' }).notNull().default(0),
    refunds: integer('refunds').notNull().default(0),
    refundCents: bigint('refund_cents', { mode: 'number' }).notNull().default(0),
    refundNetCents: bigint('refund_net_cents', { mode: 'number' }).notNull().default(0),
    refundTaxCents: bigint('refund_tax_cents', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.day, table.currency] })],
)
