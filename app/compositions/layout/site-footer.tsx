import { GitHubIcon, InstagramIcon, XIcon } from '#app/components/ui/icons.tsx'

const socialLinks = [
  { name: 'Instagram', href: 'https://www.instagram.com/codebook', Icon: InstagramIcon },
  { name: 'X (Twitter)', href: 'https://x.com/codebook', Icon: XIcon },
  { name: 'GitHub', href: 'https://github.com/codebook', Icon: GitHubIcon },
]

export function SiteFooter() {
  return (
    <footer className="border-t border-slate-200 bg-slate-50 dark:border-gray-700 dark:bg-gray-900">
      <div className="mx-auto flex max-w-7xl items-center justify-between gap-4 px-4 py-4 text-sm text-slate-600 dark:text-slate-300">
        <p>© {new Date().getFullYear()} CodeBook</p>
        <ul className="flex gap-2">
          {socialLinks.map(({ name, href, Icon }) => (
            <li key={name}>
              <a
                href={href}
                rel="noopener noreferrer"
                className="inline-flex size-9 items-center justify-center rounded-full hover:text-slate-900 dark:hover:text-white"
                aria-label={`CodeBook on ${name}`}
              >
                <Icon />
              </a>
            </li>
          ))}
        </ul>
      </div>
    </footer>
  )
}
