import { useEffect, useId, useRef, useState, type ReactNode } from 'react'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { TextareaField } from '#app/components/ui/textarea-field.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import { reportErratum, type ErratumReport } from './reader-api.ts'
import type { TextSelection } from './book-viewer.ts'
import { chromeButton } from './reader-styles.ts'

/**
 * A modal dialog (the native one: the browser keeps focus inside, Escape closes it, focus returns to what
 * opened it).
 */
function ReaderDialog({
  title,
  onClose,
  children,
}: {
  title: string
  onClose: () => void
  children: ReactNode
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const headingId = useId()
  useEffect(() => {
    const dialog = ref.current
    if (dialog && !dialog.open) dialog.showModal()
    return () => dialog?.close()
  }, [])
  return (
    <dialog
      ref={ref}
      aria-labelledby={headingId}
      onClose={onClose}
      className="m-auto w-[min(36rem,calc(100vw-2rem))] rounded-lg border border-slate-300 bg-white p-5 text-slate-900 backdrop:bg-slate-900/60 dark:border-gray-600 dark:bg-slate-800 dark:text-slate-100"
    >
      <h2 id={headingId} className="mb-4 text-xl font-semibold">
        {title}
      </h2>
      {children}
    </dialog>
  )
}

/** Highlights the selected text, with a note if the reader writes one. */
export function HighlightDialog({
  selection,
  onSave,
  onClose,
}: {
  selection: TextSelection
  onSave: (note: string) => Promise<boolean>
  onClose: () => void
}) {
  const [saving, setSaving] = useState(false)
  return (
    <ReaderDialog title="Highlight with a note" onClose={onClose}>
      <form
        className="flex flex-col gap-4"
        onSubmit={async (event) => {
          event.preventDefault()
          setSaving(true)
          const saved = await onSave(new FormData(event.currentTarget).get('note')?.toString() ?? '')
          setSaving(false)
          if (saved) onClose()
        }}
      >
        <blockquote className="max-h-32 overflow-y-auto border-l-4 border-yellow-500 pl-3 italic">
          {selection.text}
        </blockquote>
        <TextareaField label="Note" name="note" rows={4} autoFocus />
        <DialogButtons busy={saving} submitLabel="Save highlight" onCancel={onClose} />
      </form>
    </ReaderDialog>
  )
}

type ErratumErrors = Partial<Record<keyof ErratumReport, string>>

/**
 * Reports an erratum in the selected text: the quote and its place filled in, what is wrong and a suggested
 * fix written by the reader, the name to credit them by if they want one. Refused fields are told beside them.
 */
export function ErratumDialog({
  slug,
  selection,
  onClose,
  onSent,
}: {
  slug: string
  selection: TextSelection
  onClose: () => void
  onSent: () => void
}) {
  const [errors, setErrors] = useState<ErratumErrors>({})
  const [message, setMessage] = useState('')
  const [sending, setSending] = useState(false)
  // The store keeps at most 500 characters of it; a CFI is far shorter.
  const location = (selection.tocLabel ? `${selection.tocLabel} — ${selection.cfi}` : selection.cfi).slice(
    0,
    500,
  )
  return (
    <ReaderDialog title="Report an erratum" onClose={onClose}>
      <form
        className="flex flex-col gap-4"
        noValidate
        onSubmit={async (event) => {
          event.preventDefault()
          const form = new FormData(event.currentTarget)
          const field = (name: keyof ErratumReport) => form.get(name)?.toString() ?? ''
          setSending(true)
          const outcome = await reportErratum(slug, {
            quote: field('quote'),
            location: field('location'),
            description: field('description'),
            suggestion: field('suggestion'),
            credit: field('credit'),
          }).catch(() => ({
            ok: false as const,
            errors: {},
            message: 'The report could not be sent. Please check your connection and try again.',
          }))
          setSending(false)
          if (outcome.ok) return onSent()
          setErrors(outcome.errors)
          setMessage(
            outcome.message ??
              (Object.keys(outcome.errors).length > 0 ? 'Please correct the fields marked below.' : ''),
          )
        }}
      >
        {message ? (
          <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-300">
            {message}
          </p>
        ) : null}
        <TextareaField
          label="Quote"
          name="quote"
          rows={3}
          maxLength={1000}
          defaultValue={selection.text.slice(0, 1000)}
          error={errors.quote}
        />
        <TextField label="Location" name="location" defaultValue={location} error={errors.location} />
        <TextareaField
          label="What is wrong"
          name="description"
          rows={3}
          required
          autoFocus
          error={errors.description}
        />
        <TextareaField label="Suggested fix" name="suggestion" rows={3} error={errors.suggestion} />
        <TextField
          label="Credit me as (optional)"
          name="credit"
          hint="Shown with the erratum on the book’s page; leave it empty to stay anonymous."
          autoComplete="name"
          error={errors.credit}
        />
        <DialogButtons busy={sending} submitLabel="Send report" onCancel={onClose} />
      </form>
    </ReaderDialog>
  )
}

function DialogButtons({
  busy,
  submitLabel,
  onCancel,
}: {
  busy: boolean
  submitLabel: string
  onCancel: () => void
}) {
  return (
    <div className="flex flex-wrap justify-end gap-2">
      <button type="button" className={chromeButton} onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" className={primaryButton} disabled={busy}>
        {submitLabel}
      </button>
    </div>
  )
}
