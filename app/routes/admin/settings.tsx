import { data, Form, redirect, useNavigation } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { formFields } from '#app/components/ui/field.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { LogoField } from '#app/features/settings/components/logo-field.tsx'
import { TextareaField } from '#app/components/ui/textarea-field.tsx'
import { deleteLogo, logoMessages, resizeLogo, storeLogo } from '#app/features/settings/logo.server.ts'
import {
  parseSettingsForm,
  readEditableStoreSettings,
  saveStoreSettings,
  type LogoChange,
} from '#app/features/settings/store-settings.server.ts'
import {
  SETTINGS_LIMITS as LIMITS,
  settingsFormValues,
  SOCIAL_NETWORKS,
  TESTIMONIAL_COUNT,
  testimonialField,
  type SettingsFieldErrors,
  type SettingsFormValues,
} from '#app/features/settings/store-settings.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/settings'
import { FormOutcome } from '#app/components/ui/form-outcome.tsx'

export const meta: Route.MetaFunction = (args) =>
  privatePageMeta('Store settings — Back office', 'The store’s name, seller and home page texts.', args)

/**
 * The form is multipart (the logo rides along): MAX_LOGO_BYTES (2 MB) and room for the text fields, written
 * out because `handle` reaches the browser.
 */
export const handle = {
  requestBody: {
    maxBytes: 2 * 1024 * 1024 + 64 * 1024,
    tooLarge: 'This logo is larger than 2 MB. Please upload a smaller image.',
  },
}

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const { settings, version } = await readEditableStoreSettings(getAppContext(context).db)
  const saved = new URL(request.url).searchParams.get('saved') === '1'
  return { values: settingsFormValues(settings), logo: settings.logo, version, saved }
}

type ActionData = { values: SettingsFormValues; fieldErrors: SettingsFieldErrors; version?: number }

export async function action({ request, context }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const form = await readForm(request)
  const parsed = parseSettingsForm(form)
  if (!parsed.ok)
    return data<ActionData>({ values: parsed.values, fieldErrors: parsed.fieldErrors }, { status: 400 })
  const { db, storage, imageWork } = getAppContext(context)
  // A file chosen is the new logo (even if 'Remove logo' is ticked too); an empty file input sends none.
  const upload = form.get('logo')
  let logoChange: LogoChange = { kind: form.get('removeLogo') === '1' ? 'remove' : 'keep' }
  if (upload instanceof File && upload.size > 0) {
    const resized = await resizeLogo(imageWork, new Uint8Array(await upload.arrayBuffer()))
    if (!resized.ok)
      return data<ActionData>(
        { values: parsed.values, fieldErrors: { logo: logoMessages[resized.problem] } },
        { status: resized.problem === 'busy' ? 503 : 400 },
      )
    await storeLogo(storage, resized.resized)
    logoChange = { kind: 'set', logo: resized.resized.logo }
  }
  const saved = await saveStoreSettings(
    db,
    { id: admin.id, email: admin.email },
    parsed.version,
    parsed.settings,
    logoChange,
  )
  if (saved.outcome === 'saved' && saved.replacedLogo) await deleteLogo(storage, saved.replacedLogo)
  if (saved.outcome === 'conflict') {
    const current = await readEditableStoreSettings(db)
    // The files just stored are nobody's logo, unless the same image is the logo already.
    if (logoChange.kind === 'set' && current.settings.logo?.png !== logoChange.logo.png)
      await deleteLogo(storage, logoChange.logo)
    return data<ActionData>(
      {
        values: parsed.values,
        version: current.version,
        fieldErrors: {
          form: 'Another admin saved the settings meanwhile. Your version is in the form: save again to replace theirs.',
        },
      },
      { status: 409 },
    )
  }
  throw redirect('/admin/settings?saved=1', 303)
}

export default function StoreSettingsPage({ loaderData, actionData }: Route.ComponentProps) {
  const saving = useNavigation().state === 'submitting'
  const errors = actionData?.fieldErrors ?? {}
  const field = formFields(actionData?.values ?? loaderData.values, errors)
  const fieldsetClass = 'flex flex-col gap-4 rounded-lg border border-slate-200 p-4 dark:border-gray-700'
  const legendClass = 'px-1 text-lg font-semibold'
  return (
    <TitledSection
      id="settings-heading"
      title="Store settings"
      level={1}
      headingClassName="mb-6 text-2xl font-semibold"
    >
      <FormOutcome
        errors={errors}
        notSaved="The settings were not saved: please correct the fields marked below."
        saved={loaderData.saved && 'The settings were saved. Pages show them within a few seconds.'}
      />
      <Form method="post" encType="multipart/form-data" className="flex flex-col gap-6">
        <input type="hidden" name="version" value={actionData?.version ?? loaderData.version} />
        <fieldset className={fieldsetClass}>
          <legend className={legendClass}>Store</legend>
          <TextField label="Store name" {...field('storeName')} required maxLength={LIMITS.storeNameMax} />
          <LogoField
            logo={loaderData.logo}
            storeName={loaderData.values.storeName ?? ''}
            error={errors.logo}
          />
        </fieldset>

        <fieldset className={fieldsetClass}>
          <legend className={legendClass}>Seller</legend>
          <p className="text-sm text-slate-700 dark:text-slate-300">
            Shown in the footer, on receipts and on the legal pages (Imprint, Terms, Privacy). Until they are
            set, those pages say that they are not.
          </p>
          <TextField
            label="Legal name"
            {...field('legalName')}
            maxLength={LIMITS.legalNameMax}
            autoComplete="organization"
          />
          <TextareaField
            label="Postal address"
            {...field('postalAddress')}
            rows={3}
            maxLength={LIMITS.postalAddressMax}
            autoComplete="street-address"
          />
          <TextField
            label="Contact email"
            {...field('contactEmail')}
            type="email"
            maxLength={LIMITS.contactEmailMax}
            autoComplete="email"
          />
        </fieldset>

        <fieldset className={fieldsetClass}>
          <legend className={legendClass}>Social links</legend>
          <p className="text-sm text-slate-700 dark:text-slate-300">
            The footer shows an icon for each link set, and none for an empty one.
          </p>
          {SOCIAL_NETWORKS.map(({ key, label }) => (
            <TextField
              key={key}
              label={label}
              {...field(key)}
              type="url"
              placeholder="https://"
              maxLength={LIMITS.socialUrlMax}
            />
          ))}
        </fieldset>

        <fieldset className={fieldsetClass}>
          <legend className={legendClass}>Home page</legend>
          <TextareaField
            label="Paragraph under ‘The Ultimate eBook Store’"
            {...field('heroText')}
            rows={4}
            required
            maxLength={LIMITS.heroTextMax}
          />
          {Array.from({ length: TESTIMONIAL_COUNT }, (_, index) => (
            <fieldset key={index} className={fieldsetClass}>
              <legend className="px-1 font-semibold">Testimonial {index + 1}</legend>
              <TextField
                label="Headline"
                {...field(testimonialField(index, 'headline'))}
                required
                maxLength={LIMITS.headlineMax}
              />
              <TextareaField
                label="Quote"
                {...field(testimonialField(index, 'quote'))}
                rows={3}
                required
                maxLength={LIMITS.quoteMax}
              />
              <TextField
                label="Name"
                {...field(testimonialField(index, 'name'))}
                required
                maxLength={LIMITS.personNameMax}
              />
              <TextField
                label="Role"
                {...field(testimonialField(index, 'role'))}
                required
                maxLength={LIMITS.roleMax}
              />
            </fieldset>
          ))}
        </fieldset>

        <div>
          <button type="submit" className={primaryButton} disabled={saving}>
            {saving ? 'Saving…' : 'Save settings'}
          </button>
        </div>
      </Form>
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
