/**
 * The store's site pages: About, Contact, Terms, Privacy, Refund policy and Imprint, written by the owner in the
 * book descriptions' small Markdown (features/catalog/markdown.ts) at /admin/pages. Their texts may name the
 * seller through placeholders filled in from the store settings when the page is shown: {{storeName}},
 * {{legalName}}, {{postalAddress}}, {{contactEmail}} (a mailto link), so that a change of address is made once.
 */
export const SITE_PAGES = [
  { slug: 'about', title: 'About', description: 'Who runs the store and what it sells.' },
  { slug: 'contact', title: 'Contact', description: 'How to reach the seller.' },
  { slug: 'terms', title: 'Terms', description: 'The terms of sale of the store’s eBooks.' },
  {
    slug: 'privacy',
    title: 'Privacy',
    description: 'What the store stores about you, why and for how long.',
  },
  { slug: 'refunds', title: 'Refund policy', description: 'When and how a purchase is refunded.' },
  { slug: 'imprint', title: 'Imprint', description: 'Who is legally responsible for the store.' },
] as const

export type SitePageSlug = (typeof SITE_PAGES)[number]['slug']

export function isSitePageSlug(slug: string): slug is SitePageSlug {
  return SITE_PAGES.some((page) => page.slug === slug)
}

export const SITE_PAGE_LIMITS = { titleMax: 100, bodyMax: 20_000 } as const

export const SITE_PAGE_PLACEHOLDERS = ['storeName', 'legalName', 'postalAddress', 'contactEmail'] as const
