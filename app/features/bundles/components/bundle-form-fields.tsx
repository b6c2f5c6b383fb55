import { formFields } from '#app/components/ui/field.tsx'
import { TextareaField } from '#app/components/ui/textarea-field.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import type { BundleField } from '../bundle-fields.ts'

/** The fields of a bundle's form in the back office (new and edit), with their values and errors. */
export function BundleFormFields({
  values,
  errors,
}: {
  values: Partial<Record<BundleField, string>>
  errors: Partial<Record<BundleField, string>>
}) {
  const field = formFields<BundleField>(values, errors)
  return (
    <>
      <TextField label="Title" {...field('title')} required maxLength={200} />
      <TextField
        label="Address"
        {...field('slug')}
        maxLength={80}
        hint="The page is /bundles/<address>. Empty: made from the title."
      />
      <TextField
        label="Price (dollars)"
        {...field('price')}
        required
        inputMode="decimal"
        hint="Less than the books cost together."
      />
      <TextareaField
        label="Books"
        {...field('books')}
        required
        rows={5}
        hint="Their slugs, one per line, in the order the page shows them (2 to 20)."
      />
      <TextareaField label="Description" {...field('description')} rows={3} maxLength={2000} />
      <label className="flex items-center gap-2 font-medium">
        <input
          type="checkbox"
          name="active"
          defaultChecked={values.active === undefined ? true : values.active === 'on'}
          className="size-5"
        />
        In the store (can be bought)
      </label>
      {errors.active ? <p className="text-red-700 dark:text-red-300">{errors.active}</p> : null}
    </>
  )
}
