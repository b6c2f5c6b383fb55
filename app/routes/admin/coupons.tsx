import { data, Form, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { formFields, Options, SelectField } from '#app/components/ui/field.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { isUuid } from '#app/features/catalog/admin-books.server.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import {
  createCoupon,
  listAdminCoupons,
  parseCouponForm,
  setCouponActive,
  type CouponField,
  type CouponFieldErrors,
} from '#app/features/pricing/admin-coupons.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import { mailWishlistsAfterCouponChange } from '#app/features/wishlist/wishlist-mail.server.ts'
import type { Route } from './+types/coupons'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Coupons — Back office', 'Coupons in the CodeBook back office.', { matches })

/** Every coupon with its rules, uses and revenue, and the form to make one (issue 30). */
export async function loader({ request, context, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const { db, env } = getAppContext(context)
  const list = await listAdminCoupons(db)
  const done = url.searchParams.get('done')
  return {
    coupons: list.map((coupon) => ({
      ...coupon,
      link: new URL(`/c/${coupon.code}`, env.publicUrl).toString(),
    })),
    done: done === 'created' || done === 'switched' ? done : null,
  }
}

type Failure = { errors: CouponFieldErrors; values: Record<string, string> }

export async function action({ request, context }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const app = getAppContext(context)
  const { db } = app
  const form = await readForm(request)
  const actor = { id: admin.id, email: admin.email }
  const intent = form.get('intent')
  if (intent === 'activate' || intent === 'deactivate') {
    const couponId = String(form.get('couponId') ?? '')
    if (!isUuid(couponId) || !(await setCouponActive(db, actor, couponId, intent === 'activate')))
      return data<Failure>(
        { errors: { form: 'That coupon no longer exists. Please reload the page.' }, values: {} },
        404,
      )
    // A coupon switched on is news for the readers who wished for its books and asked to hear (issue 30).
    if (intent === 'activate') await mailWishlistsAfterCouponChange(app, couponId)
    throw redirect('/admin/coupons?done=switched', 303)
  }
  if (intent !== 'create')
    return data<Failure>(
      { errors: { form: 'This form could not be read. Please reload the page.' }, values: {} },
      400,
    )
  const parsed = parseCouponForm(form)
  if (!parsed.ok) return data<Failure>({ errors: parsed.errors, values: parsed.values }, 400)
  const made = await createCoupon(db, actor, parsed.coupon)
  if (!made.ok)
    return data<Failure>(
      { errors: made.errors, values: Object.fromEntries(form) as Record<string, string> },
      409,
    )
  await mailWishlistsAfterCouponChange(app, made.id)
  throw redirect('/admin/coupons?done=created', 303)
}

const kinds = [
  { value: 'percent', label: 'Percentage off' },
  { value: 'amount', label: 'Amount off (USD)' },
]

export default function AdminCoupons({ loaderData, actionData }: Route.ComponentProps) {
  const { coupons, done } = loaderData
  const failure = actionData as Failure | undefined
  const field = formFields<CouponField>(failure?.values ?? {}, failure?.errors ?? {})
  return (
    <TitledSection
      id="coupons-heading"
      title="Coupons"
      level={1}
      headingClassName="mb-6 text-2xl font-semibold"
    >
      {done ? (
        <p role="status" className="mb-4 font-medium text-emerald-800 dark:text-emerald-300">
          {done === 'created' ? 'The coupon was made: share its link below.' : 'The coupon was switched.'}
        </p>
      ) : null}
      {failure?.errors.form ? (
        <p role="alert" className="mb-4 font-medium text-red-700 dark:text-red-300">
          {failure.errors.form}
        </p>
      ) : null}

      {coupons.length === 0 ? (
        <p className="mb-8">No coupons yet.</p>
      ) : (
        // Scrolls sideways on a phone: focusable, so a keyboard can scroll it too.
        <div className="mb-10 overflow-x-auto" tabIndex={0} role="region" aria-label="Coupons, newest first">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Coupons, newest first</caption>
            <thead>
              <tr className="border-b border-slate-300 dark:border-gray-600">
                <th scope="col" className="py-2 pr-4">
                  Code
                </th>
                <th scope="col" className="py-2 pr-4">
                  Takes off
                </th>
                <th scope="col" className="py-2 pr-4">
                  Rules
                </th>
                <th scope="col" className="py-2 pr-4">
                  Used
                </th>
                <th scope="col" className="py-2 pr-4">
                  Revenue
                </th>
                <th scope="col" className="py-2">
                  State
                </th>
              </tr>
            </thead>
            <tbody>
              {coupons.map((coupon) => (
                <tr key={coupon.id} className="border-b border-slate-200 align-top dark:border-gray-700">
                  <th scope="row" className="py-2 pr-4 font-mono">
                    {coupon.code}
                    <span className="block font-sans text-xs font-normal break-all">{coupon.link}</span>
                  </th>
                  <td className="py-2 pr-4">
                    {coupon.kind === 'percent'
                      ? `${coupon.value} %`
                      : formatPrice(coupon.value, coupon.currency)}
                    {coupon.bookCount || coupon.topicCount
                      ? ` on ${coupon.bookCount} books, ${coupon.topicCount} topics`
                      : ' on everything'}
                  </td>
                  <td className="py-2 pr-4">
                    {coupon.startsAt ? (
                      <>
                        from <FormattedDate value={coupon.startsAt} />{' '}
                      </>
                    ) : null}
                    {coupon.endsAt ? (
                      <>
                        until <FormattedDate value={coupon.endsAt} />{' '}
                      </>
                    ) : null}
                    {coupon.minOrderCents
                      ? `min. ${formatPrice(coupon.minOrderCents, coupon.currency)} `
                      : ''}
                    {coupon.perAccountLimit ? `${coupon.perAccountLimit} per account ` : ''}
                    {coupon.firstPurchaseOnly ? 'first purchase only' : ''}
                  </td>
                  <td className="py-2 pr-4">
                    {coupon.redeemed}
                    {coupon.maxRedemptions ? ` of ${coupon.maxRedemptions}` : ''}
                  </td>
                  <td className="py-2 pr-4">
                    {formatPrice(coupon.revenueCents, coupon.currency)} from {coupon.paidOrders} paid orders (
                    {formatPrice(coupon.discountCents, coupon.currency)} off)
                  </td>
                  <td className="py-2">
                    <Form method="post">
                      <input type="hidden" name="couponId" value={coupon.id} />
                      <button
                        type="submit"
                        name="intent"
                        value={coupon.active ? 'deactivate' : 'activate'}
                        className="rounded border border-slate-400 px-2 py-1 dark:border-gray-500"
                        aria-label={`${coupon.active ? 'Switch off' : 'Switch on'} ${coupon.code}`}
                      >
                        {coupon.active ? 'Active: switch off' : 'Off: switch on'}
                      </button>
                    </Form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <h2 className="mb-4 text-xl font-semibold">New coupon</h2>
      <Form method="post" className="grid max-w-2xl gap-4 md:grid-cols-2">
        <input type="hidden" name="intent" value="create" />
        <TextField
          label="Code"
          {...field('code')}
          required
          maxLength={32}
          hint="3–32 letters, digits, - or _. Buyers may type it in any case."
        />
        <SelectField label="Kind" {...field('kind')} defaultValue={field('kind').defaultValue ?? 'percent'}>
          <Options options={kinds} />
        </SelectField>
        <TextField
          label="Percentage or amount"
          {...field('value')}
          required
          hint="A percentage (1–100) or dollars (e.g. 5 or 4.99)."
        />
        <TextField
          label="Minimum order (dollars)"
          {...field('minOrder')}
          hint="Of the cart at list price. Empty: none."
        />
        <TextField
          label="First day"
          {...field('startsOn')}
          type="date"
          hint="Empty: from now. (YYYY-MM-DD)"
        />
        <TextField
          label="Ends before"
          {...field('endsOn')}
          type="date"
          hint="The first day it no longer works. Empty: no end."
        />
        <TextField
          label="Orders in all"
          {...field('maxRedemptions')}
          inputMode="numeric"
          hint="Empty: no limit."
        />
        <TextField
          label="Orders per account"
          {...field('perAccountLimit')}
          inputMode="numeric"
          hint="Empty: no limit."
        />
        <TextField
          label="Only these books (slugs, comma-separated)"
          {...field('books')}
          hint="Empty with no topics: every book."
        />
        <TextField label="Only these topics (slugs, comma-separated)" {...field('topics')} />
        <label className="flex items-center gap-2 md:col-span-2">
          <input
            type="checkbox"
            name="firstPurchaseOnly"
            defaultChecked={failure?.values.firstPurchaseOnly === 'on'}
          />
          For a buyer’s first purchase only
        </label>
        <button type="submit" className={`${primaryButton} self-start`}>
          Make coupon
        </button>
      </Form>
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
