import type { ReactNode } from 'react'
import { data, Form, Link, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { CartButton } from '#app/features/cart/components/cart-button.tsx'
import { getSessionUser } from '#app/features/identity/session.server.ts'
import { OwnedBadge } from '#app/features/library/components/owned-badge.tsx'
import { useOwnedBookIds } from '#app/features/library/use-owned-books.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { RemoveFromWishlistButton, WishlistBooks } from '#app/features/wishlist/components/wishlist-books.tsx'
import { useWishlistBookIds } from '#app/features/wishlist/use-wishlist.ts'
import { findVisitorWishlist } from '#app/features/wishlist/visitor-wishlist.server.ts'
import { WishlistSettingsSchema } from '#app/features/wishlist/wishlist-form.ts'
import {
  getWishlistSettings,
  listWishlistLines,
  setWishlistNotify,
  shareWishlist,
  stopSharingWishlist,
  wishlistProblemMessages,
} from '#app/features/wishlist/wishlist.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/account-wishlist'

export const meta: Route.MetaFunction = ({ loaderData, matches }) =>
  privatePageMeta(`My Wishlist (${loaderData?.lines.length ?? 0})`, 'The eBooks on your CodeBook wishlist.', {
    matches,
  })

/**
 * The visitor's wishlist (issue 30): anyone's, a signed-out visitor's by its cookie; an account's also with
 * its share link and its price mails, which need an account (and, for the mails, a confirmed email).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const app = getAppContext(context)
  const user = await getSessionUser({ request, context })
  const wishlistId = await findVisitorWishlist(request, app, user?.id)
  const lines = wishlistId ? await listWishlistLines(app.db, wishlistId) : []
  if (!user || user.isGuest) return { lines, account: null }
  const settings = await getWishlistSettings(app.db, user.id)
  return {
    lines,
    account: {
      shareUrl: settings.shareToken
        ? new URL(`/wishlists/${settings.shareToken}`, app.env.publicUrl).toString()
        : null,
      notify: settings.notify,
      emailVerified: user.emailVerified,
    },
  }
}

export async function action({ request, context }: Route.ActionArgs) {
  const app = getAppContext(context)
  const form = await readForm(request)
  const parsed = WishlistSettingsSchema.safeParse(Object.fromEntries(form))
  if (!parsed.success)
    return data({ error: parsed.error.issues[0]?.message ?? 'Invalid request.' }, { status: 400 })
  const user = await getSessionUser({ request, context })
  if (!user || user.isGuest)
    return data({ error: wishlistProblemMessages['sign-in-required'] }, { status: 403 })
  const { intent } = parsed.data
  if (intent === 'notify-on' && !user.emailVerified)
    return data(
      {
        error:
          'Confirm your email address first (the link we mailed you, or send it again from your account page): these mails go only to a confirmed address.',
      },
      { status: 409 },
    )
  if (intent === 'share') await shareWishlist(app.db, user.id)
  else if (intent === 'stop-sharing') await stopSharingWishlist(app.db, user.id)
  else await setWishlistNotify(app.db, user.id, intent === 'notify-on')
  // Post/redirect/get: a reload does not post again; the page shows the new state.
  return redirect('/account/wishlist', { status: 303 })
}

const linkClass = 'font-medium text-blue-700 underline underline-offset-4 dark:text-sky-300'
const secondaryButton =
  'inline-flex items-center justify-center rounded-lg border border-slate-300 px-4 py-2 text-sm font-medium text-slate-800 hover:bg-slate-100 dark:border-slate-500 dark:text-slate-100 dark:hover:bg-slate-700'

export default function AccountWishlist({ loaderData, actionData }: Route.ComponentProps) {
  // Books being removed leave at once; the server's next answer confirms it.
  const wished = useWishlistBookIds()
  const owned = useOwnedBookIds()
  const lines = loaderData.lines.filter((line) => wished.has(line.bookId))
  const { account } = loaderData
  const error = actionData && 'error' in actionData ? actionData.error : undefined
  return (
    <section className="mx-auto max-w-4xl px-4 py-12">
      <SectionHeading level={1}>My Wishlist ({lines.length})</SectionHeading>
      {error ? (
        <p role="alert" className="mb-6 rounded-lg border border-red-300 bg-red-50 p-4 text-red-800">
          {error}
        </p>
      ) : null}
      {lines.length === 0 ? (
        <div className="flex flex-col items-center gap-6 py-8 text-center">
          <p className="text-lg text-slate-600 dark:text-slate-300">
            Your wishlist is empty. Press the heart beside an eBook to keep it here.
          </p>
          <Link to="/AllBooks" className={primaryButton}>
            Browse all eBooks
          </Link>
        </div>
      ) : (
        <WishlistBooks
          lines={lines}
          actions={(line) => (
            <>
              {owned.has(line.bookId) ? (
                <OwnedBadge />
              ) : line.available ? (
                <CartButton bookId={line.bookId} />
              ) : null}
              <RemoveFromWishlistButton bookId={line.bookId} title={line.title} />
            </>
          )}
        />
      )}
      {account ? (
        <div className="mt-10 grid gap-6 md:grid-cols-2">
          <Panel title="Share your wishlist">
            {account.shareUrl ? (
              <>
                <p className="mb-2 text-sm">
                  Anyone with this link sees the eBooks on your wishlist (not your name or email):
                </p>
                <p className="mb-4 rounded border border-slate-300 bg-slate-50 p-2 font-mono text-sm break-all dark:border-slate-600 dark:bg-slate-800">
                  <a href={account.shareUrl} className={linkClass}>
                    {account.shareUrl}
                  </a>
                </p>
                <SettingForm intent="stop-sharing" className={secondaryButton}>
                  Stop sharing
                </SettingForm>
                <p className="mt-2 text-sm text-slate-600 dark:text-slate-300">
                  The link stops working; sharing again makes a new one.
                </p>
              </>
            ) : (
              <>
                <p className="mb-4 text-sm">
                  Make a link to your wishlist for friends and family: they see the eBooks on it, not your
                  name or email.
                </p>
                <SettingForm intent="share" className={primaryButton}>
                  Share my wishlist
                </SettingForm>
              </>
            )}
          </Panel>
          <Panel title="Lower prices">
            <p className="mb-4 text-sm">
              {account.notify
                ? 'We email you when an eBook on your wishlist gets cheaper or a coupon applies to it (at most one mail a day; each has a link to stop them).'
                : 'Get an email when an eBook on your wishlist gets cheaper or a coupon applies to it: at most one a day, each with a link to stop them.'}
            </p>
            {account.notify ? (
              <SettingForm intent="notify-off" className={secondaryButton}>
                Stop these emails
              </SettingForm>
            ) : (
              <SettingForm intent="notify-on" className={primaryButton}>
                Email me about lower prices
              </SettingForm>
            )}
            {!account.emailVerified ? (
              <p className="mt-2 text-sm text-slate-600 dark:text-slate-300">
                These emails go only to a confirmed address:{' '}
                <Link to="/account" className={linkClass}>
                  confirm yours
                </Link>{' '}
                first.
              </p>
            ) : null}
          </Panel>
        </div>
      ) : (
        <p className="mt-10 text-center">
          <Link to="/login?redirectTo=%2Faccount%2Fwishlist" className={linkClass}>
            Log in
          </Link>{' '}
          or{' '}
          <Link to="/Register?redirectTo=%2Faccount%2Fwishlist" className={linkClass}>
            register
          </Link>{' '}
          to keep your wishlist, share it, or hear of lower prices.
        </p>
      )}
    </section>
  )
}

function Panel({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-gray-700 dark:bg-gray-900">
      <h2 className="mb-4 text-xl font-semibold">{title}</h2>
      {children}
    </section>
  )
}

function SettingForm({
  intent,
  className,
  children,
}: {
  intent: string
  className: string
  children: ReactNode
}) {
  return (
    <Form method="post">
      <button type="submit" name="intent" value={intent} className={className}>
        {children}
      </button>
    </Form>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
