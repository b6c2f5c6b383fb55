import { useId, type ReactNode } from 'react'
import { TextField } from '#app/components/ui/text-field.tsx'
import {
  BOOK_FORM_LIMITS,
  BOOK_LEVEL_OPTIONS,
  BOOK_STATUS_OPTIONS,
  type BookFieldErrors,
  type BookFormValues,
} from '../book-form.ts'

const control =
  'rounded-lg border border-slate-400 bg-white px-3 py-2 text-slate-900 aria-invalid:border-red-600 dark:border-gray-500 dark:bg-gray-900 dark:text-slate-100 dark:aria-invalid:border-red-400'

/**
 * The back office's book fields (new and edit share them), plain inputs that post without JavaScript. Values
 * come back from a refused save as they were typed, errors beside their fields.
 */
export function BookFormFields({ values, errors }: { values: BookFormValues; errors: BookFieldErrors }) {
  return (
    <div className="grid gap-5 md:grid-cols-2">
      <TextField
        label="Title"
        name="title"
        required
        maxLength={BOOK_FORM_LIMITS.titleMax}
        defaultValue={values.title}
        error={errors.title}
      />
      <TextField
        label="Slug"
        name="slug"
        required
        maxLength={BOOK_FORM_LIMITS.slugMax}
        pattern="[a-z0-9]+(-[a-z0-9]+)*"
        hint="The book's address: /books/<slug>. Changing it keeps the old address working (a permanent redirect)."
        defaultValue={values.slug}
        error={errors.slug}
      />
      <TextField
        label="Author"
        name="author"
        required
        maxLength={BOOK_FORM_LIMITS.authorMax}
        defaultValue={values.author}
        error={errors.author}
      />
      <TextField
        label="Topics"
        name="topics"
        hint="Separated by commas, like python, web."
        defaultValue={values.topics}
        error={errors.topics}
      />
      <div className="md:col-span-2">
        <Field label="Description" error={errors.description} hint={markdownHint}>
          {(props) => (
            <textarea
              {...props}
              name="description"
              rows={8}
              required
              maxLength={BOOK_FORM_LIMITS.descriptionMax}
              defaultValue={values.description}
              className={control}
            />
          )}
        </Field>
      </div>
      <TextField
        label="Price in cents"
        name="priceCents"
        inputMode="numeric"
        pattern="[0-9]+"
        required
        hint="2999 is 29.99."
        defaultValue={values.priceCents}
        error={errors.priceCents}
      />
      <TextField
        label="Currency"
        name="currency"
        required
        minLength={3}
        maxLength={3}
        hint="A 3-letter code, like USD."
        defaultValue={values.currency ?? 'USD'}
        error={errors.currency}
      />
      <Field label="Level" error={errors.level}>
        {(props) => (
          <select {...props} name="level" defaultValue={values.level ?? 'none'} className={control}>
            {BOOK_LEVEL_OPTIONS.map((level) => (
              <option key={level} value={level}>
                {level === 'none' ? 'No level' : capitalise(level)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Status" error={errors.status} hint="Only published books are in the store.">
        {(props) => (
          <select {...props} name="status" defaultValue={values.status ?? 'draft'} className={control}>
            {BOOK_STATUS_OPTIONS.map((status) => (
              <option key={status} value={status}>
                {capitalise(status)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <fieldset className="flex flex-col gap-3 md:col-span-2">
        <legend className="mb-2 text-sm font-medium">Highlights</legend>
        <Checkbox name="featured" label="Featured on the home page" checked={values.featured === 'on'} />
        <TextField
          label="Featured order"
          name="featuredPosition"
          inputMode="numeric"
          pattern="[0-9]+"
          hint="1 is shown first. Each featured book has its own number."
          defaultValue={values.featuredPosition}
          error={errors.featuredPosition}
        />
        <Checkbox name="bestSeller" label="Best seller" checked={values.bestSeller === 'on'} />
      </fieldset>
    </div>
  )
}

const markdownHint =
  'Markdown: **bold**, *italic*, `code`, [links](https://…), lists with - and headings with ###. HTML is shown as text.'

function capitalise(text: string) {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

function Checkbox({ name, label, checked }: { name: string; label: string; checked: boolean }) {
  const id = useId()
  return (
    <div className="flex items-center gap-2">
      <input
        id={id}
        type="checkbox"
        name={name}
        defaultChecked={checked}
        className="size-4 accent-blue-700"
      />
      <label htmlFor={id}>{label}</label>
    </div>
  )
}

/** A label, a control and its hint and error, tied together for screen readers (as TextField does). */
function Field({
  label,
  error,
  hint,
  children,
}: {
  label: string
  error?: string
  hint?: string
  children: (props: { id: string; 'aria-invalid'?: true; 'aria-describedby'?: string }) => ReactNode
}) {
  const id = useId()
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ')
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      {children({
        id,
        ...(error ? { 'aria-invalid': true as const } : {}),
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
      })}
      {hint ? (
        <p id={`${id}-hint`} className="text-sm text-slate-600 dark:text-slate-300">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </div>
  )
}
