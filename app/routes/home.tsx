import { Link } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { readFeaturedBooks } from '#app/features/catalog/catalog-cache.server.ts'
import { readStoreSettings } from '#app/features/settings/store-settings.server.ts'
import { storeJsonLd } from '#app/features/seo/json-ld.ts'
import { pageMeta, publicOrigin } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { catalogueLinks } from '#app/features/opds/opds-links.ts'
import { BookGrid } from '#app/compositions/book-grid.tsx'
import type { Route } from './+types/home'

/** Reading apps and browsers find the OPDS catalogue and its search from the home page (issue 33). */
export const links: Route.LinksFunction = () => catalogueLinks

export const meta: Route.MetaFunction = (args) => {
  const origin = publicOrigin(args.matches)
  return pageMeta(args, {
    title: 'The Ultimate eBook Store for Computer Science',
    description:
      'CodeBook is the reference source for computer-science eBooks: backend, frontend, JavaScript, React, Django, Go and design systems, with ratings and instant downloads.',
    path: '/',
    jsonLd: origin ? storeJsonLd(origin) : [],
  })
}

export async function loader({ context }: Route.LoaderArgs) {
  const { db } = getAppContext(context)
  const [featured, settings] = await Promise.all([readFeaturedBooks(db), readStoreSettings(db)])
  return { featured, heroText: settings.heroText, testimonials: settings.testimonials }
}

export default function Home({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <section className="mx-auto grid max-w-7xl items-center gap-10 px-4 py-12 md:grid-cols-2 md:py-20">
        <div className="flex flex-col items-start gap-6">
          <h1 className="text-4xl font-bold sm:text-5xl">The Ultimate eBook Store</h1>
          <p className="text-lg text-slate-700 sm:text-xl dark:text-slate-300">{loaderData.heroText}</p>
          <Link to="/AllBooks" className={`${primaryButton} px-5 py-3 text-base`}>
            Explore eBooks
          </Link>
        </div>
        <img
          src="/images/hero.svg"
          alt=""
          width={640}
          height={480}
          className="hidden h-auto w-full rounded-lg md:block"
        />
      </section>

      <section aria-labelledby="featured-heading" className="mx-auto max-w-7xl px-4 py-12">
        <SectionHeading id="featured-heading">Featured eBooks</SectionHeading>
        <BookGrid books={loaderData.featured} headingLevel={3} eagerCount={1} />
      </section>

      <section aria-labelledby="testimonials-heading" className="mx-auto max-w-5xl px-4 py-12">
        <SectionHeading id="testimonials-heading">Student About CodeBook</SectionHeading>
        <div className="grid overflow-hidden rounded-lg border border-slate-200 md:grid-cols-2 dark:border-gray-700">
          {loaderData.testimonials.map((testimonial, index) => (
            <figure
              key={index}
              className="flex flex-col items-center gap-4 border-slate-200 p-8 text-center not-last:border-b md:odd:border-r dark:border-gray-700"
            >
              <blockquote className="flex flex-col gap-3">
                <p className="text-lg font-semibold">{testimonial.headline}</p>
                <p className="text-slate-600 dark:text-slate-300">“{testimonial.quote}”</p>
              </blockquote>
              <figcaption className="flex items-center gap-3 text-left">
                <span
                  aria-hidden="true"
                  className="flex size-9 items-center justify-center rounded-full bg-blue-700 text-sm font-semibold text-white"
                >
                  {initials(testimonial.name)}
                </span>
                <span className="flex flex-col">
                  <span className="font-medium">{testimonial.name}</span>
                  <span className="text-sm text-slate-600 dark:text-slate-300">{testimonial.role}</span>
                </span>
              </figcaption>
            </figure>
          ))}
        </div>
      </section>
    </>
  )
}

function initials(name: string) {
  return name
    .split(/\s+/)
    .map((part) => part[0])
    .join('')
    .slice(0, 2)
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
