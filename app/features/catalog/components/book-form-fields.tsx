import { useId, useState } from 'react'
import { controlClass, Field, formFields, Options, SelectField } from '#app/components/ui/field.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import {
  BOOK_FORM_LIMITS,
  BOOK_LEVEL_OPTIONS,
  BOOK_STATUS_OPTIONS,
  slugify,
  type BookFieldErrors,
  type BookFormValues,
} from '../book-form.ts'

/**
 * The back office's book fields (new and edit share them), plain inputs that post without JavaScript. Values
 * come back from a refused save as they were typed, errors beside their fields.
 */
export function BookFormFields({ values, errors }: { values: BookFormValues; errors: BookFieldErrors }) {
  const field = formFields(values, errors)
  // The slug follows the title as it is typed until the slug is typed itself (with JavaScript); without, an
  // empty slug is made from the title when the form is saved.
  const [slug, setSlug] = useState(values.slug ?? '')
  const [slugTyped, setSlugTyped] = useState(Boolean(values.slug))
  return (
    <div className="grid gap-5 md:grid-cols-2">
      <TextField
        label="Title"
        {...field('title')}
        required
        maxLength={BOOK_FORM_LIMITS.titleMax}
        onChange={(event) => {
          if (!slugTyped) setSlug(slugify(event.currentTarget.value))
        }}
      />
      <TextField
        label="Slug"
        name="slug"
        error={errors.slug}
        value={slug}
        onChange={(event) => {
          setSlug(event.currentTarget.value)
          setSlugTyped(event.currentTarget.value !== '')
        }}
        maxLength={BOOK_FORM_LIMITS.slugMax}
        pattern="[a-z0-9]+(-[a-z0-9]+)*"
        hint="The book's address: /books/<slug>, made from the title when left empty. Changing it keeps the old address working (a permanent redirect)."
      />
      <TextField
        label="Author"
        {...field('author')}
        required
        maxLength={BOOK_FORM_LIMITS.authorMax}
        hint="The author's name, in any case: the book joins that author's page (/admin/authors edits their bio and photo). A name no author has yet adds the author."
      />
      <TextField
        label="Topics"
        {...field('topics')}
        hint="Separated by commas, like systems programming, rust. A name no topic has yet adds the topic."
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
              className={controlClass}
            />
          )}
        </Field>
      </div>
      <TextField
        label="Price"
        {...field('price')}
        inputMode="decimal"
        pattern="[0-9]*(\.[0-9]{1,2})?"
        required
        hint="In the currency below, like 29.99. For pay what you want: the suggested price."
      />
      <TextField
        label="Pay what you want, from"
        {...field('pwywMin')}
        inputMode="decimal"
        pattern="[0-9]*(\.[0-9]{1,2})?"
        hint="Empty: a fixed price. An amount (0 for free): readers choose what they pay, at least this."
      />
      <TextField
        label="Currency"
        {...field('currency')}
        defaultValue={values.currency ?? 'USD'}
        required
        minLength={3}
        maxLength={3}
        hint="A 3-letter code, like USD."
      />
      <SelectField label="Level" {...field('level')} defaultValue={values.level ?? 'none'}>
        <Options
          options={BOOK_LEVEL_OPTIONS.map((value) => ({
            value,
            label: value === 'none' ? 'No level' : capitalise(value),
          }))}
        />
      </SelectField>
      <SelectField
        label="Status"
        {...field('status')}
        defaultValue={values.status ?? 'draft'}
        hint="Only published books are in the store."
      >
        <Options options={BOOK_STATUS_OPTIONS.map((value) => ({ value, label: capitalise(value) }))} />
      </SelectField>
      <fieldset className="flex flex-col gap-3 md:col-span-2">
        <legend className="mb-2 text-sm font-medium">Highlights</legend>
        <Checkbox name="featured" label="Featured on the home page" checked={values.featured === 'on'} />
        <TextField
          label="Featured order"
          {...field('featuredPosition')}
          inputMode="numeric"
          pattern="[0-9]+"
          hint="1 is shown first. Each featured book has its own number."
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
