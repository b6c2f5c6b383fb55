import { data, Form, Link, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { formFields } from '#app/components/ui/field.tsx'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { TextareaField } from '#app/components/ui/textarea-field.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import { parseGiftForm, type GiftField } from '#app/features/gifts/gift-form.ts'
import { createGift, findGiftItem } from '#app/features/gifts/gifts.server.ts'
import { requireUser } from '#app/features/identity/session.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/gift'

export const meta: Route.MetaFunction = ({ loaderData, matches }) =>
  privatePageMeta(`Give ${loaderData?.item.title ?? 'an eBook'} as a gift`, 'Give an eBook as a gift.', {
    matches,
  })

/** Which item a gift URL names: /gift/books/<slug> or /gift/bundles/<slug>; 404 for anything else. */
async function readItem(params: { kind: string; slug: string }, db: Parameters<typeof findGiftItem>[0]) {
  const kind = params.kind === 'books' ? 'book' : params.kind === 'bundles' ? 'bundle' : null
  const item = kind ? await findGiftItem(db, { kind, slug: params.slug.toLowerCase() }) : null
  if (!item) throw new Response('This eBook cannot be given right now.', { status: 404 })
  return item
}

/**
 * A gift's form (issue 30): for whom (their email), an optional name and message, the day it arrives. The
 * buyer signs in first (the gift is paid like any order, and listed on their account); then the checkout page
 * takes the payment for the gift alone.
 */
export async function loader({ request, context, params, url }: Route.LoaderArgs) {
  const { db } = getAppContext(context)
  const item = await readItem(params, db)
  await requireUser({ request, context, url })
  return { item, today: new Date().toISOString().slice(0, 10) }
}

type Failure = { errors: Partial<Record<GiftField, string>>; values: Record<string, string> }

export async function action({ request, context, params, url }: Route.ActionArgs) {
  const { db } = getAppContext(context)
  const item = await readItem(params, db)
  const user = await requireUser({ request, context, url })
  const parsed = parseGiftForm(await readForm(request), user.email)
  if (!parsed.ok) return data<Failure>({ errors: parsed.errors, values: parsed.values }, 400)
  const giftId = await createGift(db, user.id, item, parsed.gift)
  throw redirect(`/checkout?${new URLSearchParams({ gift: giftId })}`, 303)
}

export default function Gift({ loaderData, actionData }: Route.ComponentProps) {
  const { item, today } = loaderData
  const failure = actionData as Failure | undefined
  const field = formFields<GiftField>(failure?.values ?? {}, failure?.errors ?? {})
  return (
    <section className="mx-auto max-w-2xl px-4 py-12">
      <SectionHeading level={1}>Give {item.title} as a gift</SectionHeading>
      <p className="mb-6 text-slate-700 dark:text-slate-300">
        They get a mail on the day you choose, with a link that puts the{' '}
        {item.kind === 'bundle' ? 'bundle’s eBooks' : 'eBook'} in their library (they make a free account on
        the way if they have none). You pay now; if it is not claimed you can send the mail again from{' '}
        <Link to="/account/gifts" className="underline">
          My gifts
        </Link>
        .
      </p>
      <Form method="post" className="grid gap-4">
        <TextField
          label="Their email"
          {...field('recipientEmail')}
          type="email"
          required
          maxLength={254}
          autoComplete="off"
        />
        <TextField
          label="Their name (optional)"
          {...field('recipientName')}
          maxLength={100}
          autoComplete="off"
        />
        <TextareaField
          label="Your message (optional)"
          {...field('message')}
          rows={4}
          maxLength={1000}
          hint="At most 1,000 characters."
        />
        <TextField
          label="Deliver on"
          {...field('deliverOn')}
          type="date"
          min={today}
          hint="Empty: today. Up to a year ahead. (YYYY-MM-DD)"
        />
        <button type="submit" className={`${primaryButton} justify-self-start px-5 py-3 text-base`}>
          Continue to payment
        </button>
      </Form>
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
