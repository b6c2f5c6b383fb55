import { Field } from '#app/components/ui/field.tsx'
import { logoUrl, type StoreLogo } from '../store-settings.ts'

/**
 * The logo's part of the settings form (a multipart form): the logo shown now with a 'Remove logo' checkbox,
 * and a file input with its limits and, after a refused upload, why.
 */
export function LogoField({
  logo,
  storeName,
  error,
}: {
  logo: StoreLogo | null
  storeName: string
  error?: string
}) {
  return (
    <div className="flex flex-col gap-3">
      {logo ? (
        <div className="flex flex-wrap items-center gap-4">
          <picture>
            <source type="image/webp" srcSet={logoUrl(logo.webp)} />
            <img
              src={logoUrl(logo.png)}
              alt={`The logo of ${storeName} now`}
              width={Math.round((logo.width * 40) / logo.height)}
              height={40}
              className="h-10 w-auto max-w-60 rounded border border-slate-200 p-1 dark:border-gray-700"
            />
          </picture>
          <label className="inline-flex items-center gap-2 text-sm">
            <input type="checkbox" name="removeLogo" value="1" className="size-4" />
            Remove logo
          </label>
        </div>
      ) : null}
      <Field
        label={logo ? 'Replace the logo' : 'Logo (optional)'}
        hint="PNG, JPEG, WebP or AVIF, at most 2 MB and 16 megapixels. It is shown 40 pixels high beside the store’s name, in place of the round CodeBook logo; a transparent background suits both themes."
        error={error}
      >
        {(control) => (
          <input
            {...control}
            type="file"
            name="logo"
            accept="image/png,image/jpeg,image/webp,image/avif"
            className="text-sm"
          />
        )}
      </Field>
    </div>
  )
}
