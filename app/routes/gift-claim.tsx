import { data, Form, Link, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { claimGift, findGiftByToken } from '#app/features/gifts/gift-delivery.server.ts'
import { getSessionUser, requireUser } from '#app/features/identity/session.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/gift-claim'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Your eBook gift', 'An eBook gift at CodeBook.', { matches })

const claimMessages = {
  'not-found': 'This gift link is no longer valid: a newer mail may have replaced it.',
  'already-claimed': 'This gift has been added to another library already.',
  revoked: 'This gift was taken back by its buyer and can no longer be claimed.',
} as const

/**
 * A gift's claim link (issue 30): what it is and from whom; signed in, one button puts its books in the
 * reader's library; signed out, the ways to log in or make an account, which come back here.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { db } = getAppContext(context)
  const gift = await findGiftByToken(db, params.token)
  if (!gift) throw data({ title: 'Gift not found', message: claimMessages['not-found'] }, 404)
  const user = await getSessionUser({ request, context })
  const state =
    gift.revokedAt || gift.orderStatus !== 'paid' ? 'revoked' : gift.claimedAt ? 'claimed' : 'open'
  return {
    gift: {
      from: gift.from,
      message: gift.message,
      recipientName: gift.recipientName,
      bundleTitle: gift.bundleTitle,
      books: gift.books,
    },
    state,
    signedIn: Boolean(user && !user.isGuest),
    here: `/gifts/claim/${params.token}`,
  }
}

export async function action({ request, context, params, url }: Route.ActionArgs) {
  const { db } = getAppContext(context)
  const user = await requireUser({ request, context, url })
  const outcome = await claimGift(db, params.token, user.id)
  if (outcome === 'claimed') throw redirect('/account/library?gift=claimed', 303)
  return data({ error: claimMessages[outcome] }, outcome === 'not-found' ? 404 : 409)
}

export default function GiftClaim({ loaderData, actionData }: Route.ComponentProps) {
  const { gift, state, signedIn, here } = loaderData
  const error = (actionData as { error?: string } | undefined)?.error
  const back = new URLSearchParams({ redirectTo: here })
  return (
    <section className="mx-auto max-w-3xl px-4 py-12">
      <SectionHeading level={1}>
        {gift.from} gave you {gift.bundleTitle ?? (gift.books.length === 1 ? gift.books[0]!.title : 'eBooks')}
      </SectionHeading>
      {gift.message ? (
        <blockquote className="mb-6 border-l-4 border-slate-400 pl-4 text-lg text-slate-800 dark:border-gray-500 dark:text-slate-200">
          {gift.message}
        </blockquote>
      ) : null}
      <ul className="mb-8 grid gap-4 sm:grid-cols-2">
        {gift.books.map((book) => (
          <li
            key={book.bookId}
            className="flex items-center gap-4 rounded-lg border border-slate-200 p-3 dark:border-gray-700"
          >
            <img
              src={book.coverPath}
              alt=""
              width={400}
              height={600}
              className="h-24 w-16 rounded object-cover"
            />
            <Link to={`/books/${book.slug}`} className="font-semibold hover:underline">
              {book.title}
            </Link>
          </li>
        ))}
      </ul>
      {error ? (
        <p role="alert" className="mb-4 font-medium text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
      {state === 'revoked' ? (
        <p className="font-medium">{claimMessages.revoked}</p>
      ) : state === 'claimed' ? (
        <p className="font-medium">
          This gift has been claimed.{' '}
          {signedIn ? (
            <Link to="/account/library" className="underline">
              Open your library
            </Link>
          ) : null}
        </p>
      ) : signedIn ? (
        <Form method="post">
          <button type="submit" className={`${primaryButton} px-5 py-3 text-base`}>
            Add to my library
          </button>
        </Form>
      ) : (
        <div className="flex flex-wrap items-center gap-4">
          <p className="w-full">
            Log in, or make a free account, to add {gift.books.length === 1 ? 'it' : 'them'} to your library.
          </p>
          <Link to={`/login?${back}`} className={primaryButton}>
            Log in
          </Link>
          <Link to={`/Register?${back}`} className="font-medium underline">
            Create an account
          </Link>
        </div>
      )}
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
