import { useRouteLoaderData } from 'react-router'
import { defaultTestimonials, type Testimonial } from './default-testimonials.ts'
import { escapeHtml } from '#app/server/escape-html.ts'

export type { Testimonial }

/**
 * The owner's settings of the store, as the browser may see them: the store's name, the seller's identity
 * (legal name, postal address, contact email: the footer, receipts and the legal pages show them), the social
 * links the footer shows (none until set), and the home page's hero paragraph and four testimonials. The schema
 * the back office saves them through is on the server (store-settings.server.ts); zod never reaches the browser.
 */
export const SOCIAL_NETWORKS = [
  { key: 'instagram', label: 'Instagram' },
  { key: 'x', label: 'X (Twitter)' },
  { key: 'github', label: 'GitHub' },
  { key: 'mastodon', label: 'Mastodon' },
] as const
export type SocialNetwork = (typeof SOCIAL_NETWORKS)[number]['key']

/**
 * The owner's logo, resized for the header (shown 40 pixels high, stored at twice that) as WebP and PNG: the
 * files' names under /media/logo/, each holding a hash of the upload, and the stored images' size.
 */
export type StoreLogo = { webp: string; png: string; width: number; height: number }

/** Where a logo's file is served: /media/logo/<file>. */
export function logoUrl(file: string): string {
  return `/media/logo/${file}`
}

export type StoreSettings = {
  storeName: string
  /** null until the owner uploads one: the header shows the seed's round logo. */
  logo: StoreLogo | null
  /** '' until the owner sets it: the legal pages then say so instead of inventing one. */
  legalName: string
  postalAddress: string
  contactEmail: string
  /** An empty link is not shown. */
  social: Record<SocialNetwork, string>
  heroText: string
  /** Always four, as the seed's home page shows. */
  testimonials: Testimonial[]
}

/** What a fresh store shows: the texts the store had before they were settings. */
export const defaultStoreSettings: StoreSettings = {
  storeName: 'CodeBook',
  logo: null,
  legalName: '',
  postalAddress: '',
  contactEmail: '',
  social: { instagram: '', x: '', github: '', mastodon: '' },
  heroText:
    'CodeBook is the reference source for computer-science eBooks. Compare ratings from fellow readers, pick the book that fits where you are, and start reading the moment you buy it — every title is an instant download.',
  testimonials: defaultTestimonials.map((testimonial) => ({ ...testimonial })),
}

export const SETTINGS_LIMITS = {
  storeNameMax: 60,
  legalNameMax: 200,
  postalAddressMax: 500,
  contactEmailMax: 254,
  socialUrlMax: 300,
  heroTextMax: 600,
  headlineMax: 100,
  quoteMax: 600,
  personNameMax: 100,
  roleMax: 150,
} as const

export const TESTIMONIAL_COUNT = 4
const testimonialParts = ['headline', 'quote', 'name', 'role'] as const
export type TestimonialPart = (typeof testimonialParts)[number]

/** The form's field for part `part` of testimonial `index` (0-based): 'testimonial1Quote', … */
export function testimonialField(index: number, part: TestimonialPart): SettingsField {
  return `testimonial${index + 1}${part[0]!.toUpperCase()}${part.slice(1)}` as SettingsField
}

export const settingsFields = [
  'storeName',
  'legalName',
  'postalAddress',
  'contactEmail',
  ...SOCIAL_NETWORKS.map((network) => network.key),
  'heroText',
  ...Array.from({ length: TESTIMONIAL_COUNT }, (_, index) =>
    testimonialParts.map(
      (part) => `testimonial${index + 1}${part[0]!.toUpperCase()}${part.slice(1)}` as const,
    ),
  ).flat(),
] as const
export type SettingsField = (typeof settingsFields)[number]
export type SettingsFormValues = Partial<Record<SettingsField, string>>
/** A message per field; `logo` for a refused upload, `form` for the whole form. */
export type SettingsFieldErrors = Partial<Record<SettingsField | 'logo' | 'form', string>>

/** The settings as the form's flat fields. */
export function settingsFormValues(settings: StoreSettings): SettingsFormValues {
  const values: SettingsFormValues = {
    storeName: settings.storeName,
    legalName: settings.legalName,
    postalAddress: settings.postalAddress,
    contactEmail: settings.contactEmail,
    heroText: settings.heroText,
  }
  for (const { key } of SOCIAL_NETWORKS) values[key] = settings.social[key]
  settings.testimonials.forEach((testimonial, index) => {
    for (const part of testimonialParts) values[testimonialField(index, part)] = testimonial[part]
  })
  return values
}

/**
 * The part of the settings every page needs (the header's name and logo, the footer's seller and links): what the
 * root loader sends.
 */
export type StoreIdentity = Pick<
  StoreSettings,
  'storeName' | 'logo' | 'legalName' | 'postalAddress' | 'contactEmail' | 'social'
>

export function storeIdentity(settings: StoreSettings): StoreIdentity {
  const { storeName, logo, legalName, postalAddress, contactEmail, social } = settings
  return { storeName, logo, legalName, postalAddress, contactEmail, social }
}

/** The seller as receipts and mails name them: only the parts the owner has set (none invented). */
export type Seller = Pick<StoreSettings, 'storeName' | 'legalName' | 'postalAddress' | 'contactEmail'>

/** The seller's lines for a receipt (legal name, address lines, contact email); empty until any is set. */
export function sellerLines(seller: Seller): string[] {
  return [seller.legalName, ...seller.postalAddress.split('\n'), seller.contactEmail]
    .map((line) => line.trim())
    .filter((line) => line !== '')
}

/** The seller's block of a mail, as text and HTML: '' for both until the owner has set any of it. */
export function sellerBlock(seller: Seller): { text: string; html: string } {
  const lines = sellerLines(seller)
  if (lines.length === 0) return { text: '', html: '' }
  const html = lines
    .map((line) =>
      line === seller.contactEmail
        ? `<a href="mailto:${escapeHtml(line)}">${escapeHtml(line)}</a>`
        : escapeHtml(line),
    )
    .join('<br>')
  return {
    text: ['Seller:', ...lines].join('\n'),
    html: `<p style="color:#475569;font-size:14px">Seller:<br>${html}</p>\n`,
  }
}

export type RootStoreData = { store: StoreIdentity }

/** The store's identity from the root loader; the defaults where the root did not load (its error page). */
export function useStoreIdentity(): StoreIdentity {
  const root = useRouteLoaderData('root') as RootStoreData | undefined
  return root?.store ?? storeIdentity(defaultStoreSettings)
}
