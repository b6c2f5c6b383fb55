import { Link } from 'react-router'
import { getBundlePage } from '#app/features/bundles/bundles.server.ts'
import { AddBundleButton } from '#app/features/bundles/components/bundle-cart-button.tsx'
import { bundleJsonLd, bundleTrail } from '#app/features/bundles/bundle-seo.ts'
import { isKeyOfBundle } from '#app/features/cart/bundle-book-key.ts'
import { useCartBookIds } from '#app/features/cart/use-cart.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import { getSessionUser } from '#app/features/identity/session.server.ts'
import { Breadcrumbs } from '#app/features/seo/components/breadcrumbs.tsx'
import { breadcrumbJsonLd } from '#app/features/seo/json-ld.ts'
import { errorPageMeta, pageMeta, publicOrigin } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/bundle'

export const meta: Route.MetaFunction = (args) => {
  const bundle = args.loaderData?.bundle
  if (!bundle) return errorPageMeta('Bundle not found')
  const origin = publicOrigin(args.matches)
  const path = `/bundles/${bundle.slug}`
  const price = formatPrice(bundle.priceCents, bundle.currency)
  const image = {
    path: `${path}/cover.png?v=${bundle.updatedAt.getTime()}`,
    width: 1200,
    height: 630,
    alt: `The covers of ${bundle.books.map((book) => book.title).join(', ')}`,
  }
  return pageMeta(args, {
    title: `${bundle.title}: ${bundle.books.length} eBooks for ${price}`,
    description:
      bundle.description || `${bundle.books.map((book) => book.title).join(', ')}: together for ${price}.`,
    path,
    image,
    jsonLd: origin
      ? [bundleJsonLd(origin, bundle, image.path), breadcrumbJsonLd(origin, bundleTrail(bundle))]
      : [],
  })
}

export async function loader({ params, context, request }: Route.LoaderArgs) {
  const { db } = getAppContext(context)
  const user = await getSessionUser({ request, context })
  const bundle = await getBundlePage(
    db,
    params.slug.toLowerCase(),
    user && !user.isGuest ? user.id : (user?.id ?? null),
  )
  if (!bundle) throw new Response('No such bundle.', { status: 404 })
  return { bundle }
}

export default function Bundle({ loaderData }: Route.ComponentProps) {
  const { bundle } = loaderData
  const inCart = [...useCartBookIds()].some((id) => isKeyOfBundle(id, bundle.id))
  const price = (cents: number) => formatPrice(cents, bundle.currency)
  const owned = bundle.books.filter((book) => book.owned).length
  return (
    <>
      <Breadcrumbs trail={bundleTrail(bundle)} className="mx-auto max-w-6xl px-4 pt-6" />
      <article className="mx-auto grid max-w-6xl gap-10 px-4 pt-6 pb-12 md:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <img
          src={`/bundles/${bundle.slug}/cover.png?v=${bundle.updatedAt.getTime()}`}
          alt={`The covers of ${bundle.books.map((book) => book.title).join(', ')}`}
          width={1200}
          height={630}
          className="h-auto w-full rounded-lg shadow-lg"
        />
        <div className="flex flex-col gap-4">
          <p className="text-sm font-semibold tracking-wide text-blue-700 uppercase dark:text-sky-300">
            Bundle · {bundle.books.length} eBooks
          </p>
          <h1 className="text-4xl font-bold">{bundle.title}</h1>
          {bundle.description ? (
            <p className="text-lg text-slate-700 dark:text-slate-300">{bundle.description}</p>
          ) : null}
          <dl className="grid grid-cols-[auto_auto] justify-start gap-x-4 gap-y-1 text-lg">
            <dt>Bundle price</dt>
            <dd className="font-semibold">{price(bundle.priceCents)}</dd>
            {bundle.separateCents > bundle.priceCents ? (
              <>
                <dt>Bought one by one</dt>
                <dd>
                  <s>{price(bundle.separateCents)}</s> (you save{' '}
                  {price(bundle.separateCents - bundle.priceCents)})
                </dd>
              </>
            ) : null}
            {owned > 0 && bundle.yourPriceCents !== null ? (
              <>
                <dt>Your price</dt>
                <dd className="font-semibold">{price(bundle.yourPriceCents)}</dd>
              </>
            ) : null}
          </dl>
          {owned > 0 && bundle.yourPriceCents !== null ? (
            <p className="text-slate-700 dark:text-slate-300">
              You own {owned} of its {bundle.books.length} eBooks, so you pay only for the others: the
              bundle’s price times their share of the books’ prices.
            </p>
          ) : null}
          {bundle.yourPriceCents === null ? (
            <p className="font-medium">
              You own every eBook in this bundle: they are in your{' '}
              <Link to="/account/library" className="underline">
                library
              </Link>
              .
            </p>
          ) : bundle.forSale ? (
            <AddBundleButton bundle={bundle} inCart={inCart} />
          ) : (
            <p className="font-medium">This bundle is not available for purchase right now.</p>
          )}
          {bundle.forSale ? (
            <Link
              to={`/gift/bundles/${bundle.slug}`}
              className="self-start font-medium text-blue-700 underline dark:text-sky-300"
            >
              Give this bundle as a gift
            </Link>
          ) : null}
        </div>
      </article>
      <section aria-labelledby="bundle-books" className="mx-auto max-w-6xl px-4 pb-16">
        <h2 id="bundle-books" className="mb-4 text-2xl font-bold">
          In this bundle
        </h2>
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {bundle.books.map((book) => (
            <li
              key={book.id}
              className="flex gap-4 rounded-lg border border-slate-200 p-4 dark:border-gray-700"
            >
              <img
                src={book.coverPath}
                alt=""
                width={400}
                height={600}
                className="h-32 w-auto rounded object-cover"
              />
              <div className="flex flex-col gap-1">
                <Link to={`/books/${book.slug}`} className="text-lg font-semibold hover:underline">
                  {book.title}
                </Link>
                <span className="text-slate-700 dark:text-slate-300">by {book.author}</span>
                <span>{formatPrice(book.priceCents, book.currency)} on its own</span>
                {book.owned ? (
                  <span className="text-sm font-medium text-green-800 dark:text-green-300">
                    In your library
                  </span>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      </section>
    </>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
