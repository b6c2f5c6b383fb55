const labels: Record<string, { label: string; className: string }> = {
  paid: {
    label: 'Paid',
    className: 'border-emerald-700 text-emerald-800 dark:border-emerald-400 dark:text-emerald-300',
  },
  pending: {
    label: 'Awaiting payment',
    className: 'border-amber-700 text-amber-900 dark:border-amber-400 dark:text-amber-200',
  },
  failed: {
    label: 'Payment failed',
    className: 'border-red-700 text-red-800 dark:border-red-400 dark:text-red-300',
  },
  refunded: {
    label: 'Refunded',
    className: 'border-slate-600 text-slate-700 dark:border-slate-400 dark:text-slate-300',
  },
}

/** 'Paid', 'Awaiting payment'…: an order's status in words (the status itself for one this list lacks). */
export function orderStatusLabel(status: string): string {
  return labels[status]?.label ?? status
}

export function OrderStatus({ status }: { status: string }) {
  const { label, className } = labels[status] ?? { label: status, className: '' }
  return <span className={`rounded-full border px-2.5 py-0.5 text-sm font-medium ${className}`}>{label}</span>
}
