import { Link } from 'react-router'
import { GitHubIcon, InstagramIcon, XIcon } from '#app/components/ui/icons.tsx'
import {
  SOCIAL_NETWORKS,
  useStoreIdentity,
  type SocialNetwork,
} from '#app/features/settings/store-settings.ts'
import { SITE_PAGES } from '#app/features/site-pages/site-pages.ts'

function MastodonIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg
      aria-hidden
      focusable={false}
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
      viewBox="0 0 24 24"
      className={className}
    >
      <path d="M18.4 13.5c-.3 1.4-2.4 2.9-4.8 3.2-1.3.2-2.5.3-3.8.2-2.1-.1-3.8-.5-3.8-.5v.6c.3 2.1 2.1 2.2 3.9 2.3 1.8.1 3.3-.4 3.3-.4l.1 1.6s-1.3.7-3.5.8c-1.2.1-2.8-.1-4.6-.5C2.9 20.2 2.2 16 2.1 11.8V8.4c0-4.3 2.8-5.5 2.8-5.5C6.3 2.2 8.7 2 11.2 2h.1c2.5 0 4.9.2 6.3.9 0 0 2.8 1.2 2.8 5.5 0 0 0 3.2-.4 5.1Z" />
      <path d="M8 12V8.6c0-1 .6-1.7 1.6-1.7 1.1 0 1.6.7 1.6 1.8v2.1M11.2 10.8V8.7c0-1.1.6-1.8 1.6-1.8 1 0 1.6.7 1.6 1.7V12" />
    </svg>
  )
}

const icons: Record<SocialNetwork, (props: { className?: string }) => React.JSX.Element> = {
  instagram: InstagramIcon,
  x: XIcon,
  github: GitHubIcon,
  mastodon: MastodonIcon,
}

const linkClass = 'rounded underline-offset-4 hover:text-slate-900 hover:underline dark:hover:text-white'

/**
 * The store's name and the current year, the site pages, the seller's legal name, address and contact email (each
 * once set), and an icon for each social account the owner has set (none until then: the seed's icons linked to
 * accounts the owner does not own).
 */
export function SiteFooter() {
  const store = useStoreIdentity()
  const social = SOCIAL_NETWORKS.filter(({ key }) => store.social[key])
  // The seller as the legal pages name them (README: shown in the footer), on one line; nothing until set.
  const seller = [store.legalName, ...store.postalAddress.split('\n')]
    .map((part) => part.trim())
    .filter(Boolean)
    .join(', ')
  return (
    <footer className="border-t border-slate-200 bg-slate-50 dark:border-gray-700 dark:bg-gray-900">
      <div className="mx-auto flex max-w-7xl flex-col gap-4 px-4 py-6 text-sm text-slate-600 md:flex-row md:items-center md:justify-between dark:text-slate-300">
        <nav aria-label="Site pages">
          <ul className="flex flex-wrap gap-x-4 gap-y-2">
            {SITE_PAGES.map((page) => (
              <li key={page.slug}>
                <Link to={`/${page.slug}`} className={linkClass}>
                  {page.title}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
          <p>
            © {new Date().getFullYear()} {store.storeName}
          </p>
          {seller ? <address className="not-italic">{seller}</address> : null}
          {store.contactEmail ? (
            <a href={`mailto:${store.contactEmail}`} className={linkClass}>
              {store.contactEmail}
            </a>
          ) : null}
          {social.length > 0 ? (
            <ul className="flex gap-2">
              {social.map(({ key, label }) => {
                const Icon = icons[key]
                return (
                  <li key={key}>
                    <a
                      href={store.social[key]}
                      rel="noopener noreferrer me"
                      className="inline-flex size-9 items-center justify-center rounded-full hover:text-slate-900 dark:hover:text-white"
                      aria-label={`${store.storeName} on ${label}`}
                    >
                      <Icon />
                    </a>
                  </li>
                )
              })}
            </ul>
          ) : null}
        </div>
      </div>
    </footer>
  )
}
