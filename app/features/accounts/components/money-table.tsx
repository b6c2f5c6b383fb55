import { DataTable } from '#app/components/ui/data-table.tsx'
import { formatPrice } from '#app/features/catalog/format.ts'
import type { MoneyFigures } from '../money.ts'

/** The four figures' names, as every page that shows money says them (money.ts says what each is). */
export const MONEY_LABELS = {
  grossCents: 'Gross sales',
  refundsCents: 'Refunds',
  taxCents: 'Tax',
  netCents: 'Net revenue',
} as const

const amountClass = 'whitespace-nowrap text-right tabular-nums'

/** Gross sales, refunds, tax and net revenue of a period, a row per currency (never added across them). */
export function MoneyTable({ money, caption }: { money: MoneyFigures[]; caption: string }) {
  return (
    <DataTable
      caption={caption}
      rowKey={(row) => row.currency}
      rows={money}
      columns={[
        { header: 'Currency', cell: (row) => row.currency, rowHeader: true },
        { header: 'Orders', cell: (row) => row.orders, className: amountClass },
        ...(['grossCents', 'refundsCents', 'taxCents', 'netCents'] as const).map((key) => ({
          header: MONEY_LABELS[key],
          cell: (row: MoneyFigures) => formatPrice(row[key], row.currency),
          className: key === 'netCents' ? `${amountClass} font-semibold` : amountClass,
        })),
      ]}
    />
  )
}
