import { data, Form, Link } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { findUnsubscribeToken, unsubscribeWishlist } from '#app/features/wishlist/wishlist.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { secretUrlHeaders } from '#app/sign-in.server.ts'
import type { Route } from './+types/wishlist-unsubscribe'

/**
 * The link in every wishlist mail (issue 30): a GET only shows a button (a mail scanner following links must
 * not unsubscribe anyone), its POST turns the mails off. No sign-in needed: the token is the proof. Unknown
 * token: 404.
 */
const notFound = () =>
  data(
    {
      title: 'Link not found',
      message: 'This unsubscribe link is not valid. You can turn the mails off on your wishlist page.',
    },
    { status: 404, headers: { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } },
  )

export async function loader({ params, context }: Route.LoaderArgs) {
  const found = await findUnsubscribeToken(getAppContext(context).db, params.token)
  if (!found) throw notFound()
  return { subscribed: found.notify }
}

export async function action({ params, context }: Route.ActionArgs) {
  if (!(await unsubscribeWishlist(getAppContext(context).db, params.token))) throw notFound()
  return { done: true }
}

export const headers: Route.HeadersFunction = secretUrlHeaders

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Wishlist emails', 'Stop the emails about lower prices on your wishlist.', { matches })

export default function WishlistUnsubscribe({ loaderData, actionData }: Route.ComponentProps) {
  const done = actionData?.done || !loaderData.subscribed
  return (
    <section className="mx-auto max-w-2xl px-4 py-12 text-center">
      <SectionHeading level={1}>Wishlist emails</SectionHeading>
      {done ? (
        <p role="status" className="mb-6 text-lg">
          You will get no more emails about lower prices on your wishlist.
        </p>
      ) : (
        <Form method="post" className="mb-6 flex flex-col items-center gap-4">
          <p className="text-lg">Stop the emails about lower prices on the eBooks on your wishlist?</p>
          <button type="submit" className={primaryButton}>
            Stop these emails
          </button>
        </Form>
      )}
      <p>
        <Link
          to="/account/wishlist"
          className="font-medium text-blue-700 underline underline-offset-4 dark:text-sky-300"
        >
          See your wishlist
        </Link>
      </p>
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
