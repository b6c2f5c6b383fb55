import { useId, useState, type FormEvent } from 'react'
import { useRevalidator } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'

type UploadState =
  | { kind: 'idle' }
  | { kind: 'uploading'; percent: number }
  | { kind: 'processing' }
  | { kind: 'done'; message: string }
  | { kind: 'failed'; message: string }

/**
 * The cover form. Without JavaScript it is an ordinary multipart post (the server redirects back to the
 * edit page with the outcome). With JavaScript it is sent by XMLHttpRequest, whose upload events feed a
 * labelled `<progress>`; the outcome is announced in a live region and the page's data is reloaded (the
 * book's version changed).
 */
export function CoverUpload({
  bookId,
  version,
  initialError,
}: {
  bookId: string
  version: number
  initialError: string | null
}) {
  const id = useId()
  const revalidator = useRevalidator()
  const [state, setState] = useState<UploadState>(
    initialError ? { kind: 'failed', message: initialError } : { kind: 'idle' },
  )
  const busy = state.kind === 'uploading' || state.kind === 'processing'

  function upload(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const form = event.currentTarget
    const request = new XMLHttpRequest()
    request.open('POST', form.action)
    request.setRequestHeader('Accept', 'application/json')
    request.upload.addEventListener('progress', (progress) => {
      if (!progress.lengthComputable) return
      const percent = Math.round((progress.loaded / progress.total) * 100)
      setState(percent >= 100 ? { kind: 'processing' } : { kind: 'uploading', percent })
    })
    request.addEventListener('load', () => {
      let message = 'The upload failed. Please try again.'
      try {
        // The store's answer, or the host's refusal of a too large body ({ error }).
        const body = JSON.parse(request.responseText) as { message?: string; error?: string }
        message = body.message ?? body.error ?? message
      } catch {
        // Not the store's JSON (a proxy's error page): the generic message stands.
      }
      if (request.status === 200) {
        setState({ kind: 'done', message })
        form.reset()
        void revalidator.revalidate()
      } else {
        setState({ kind: 'failed', message })
      }
    })
    request.addEventListener('error', () =>
      setState({
        kind: 'failed',
        message: 'The upload was interrupted. Please check your connection and try again.',
      }),
    )
    setState({ kind: 'uploading', percent: 0 })
    request.send(new FormData(form))
  }

  return (
    <form
      method="post"
      action={`/admin/books/${bookId}/cover`}
      encType="multipart/form-data"
      onSubmit={upload}
      className="flex flex-col gap-3"
    >
      <input type="hidden" name="version" value={version} />
      <div className="flex flex-col gap-1">
        <label htmlFor={`${id}-file`} className="text-sm font-medium">
          New cover image
        </label>
        <input
          id={`${id}-file`}
          type="file"
          name="cover"
          required
          accept="image/jpeg,image/png,image/webp,image/avif"
          aria-describedby={`${id}-hint`}
          className="text-sm"
        />
        <p id={`${id}-hint`} className="text-sm text-slate-600 dark:text-slate-300">
          JPEG, PNG, WebP or AVIF, at most 10 MB and 40 megapixels. It is resized for the store (AVIF, WebP
          and JPEG).
        </p>
      </div>
      <div>
        <button type="submit" className={primaryButton} disabled={busy}>
          {busy ? 'Uploading…' : 'Upload cover'}
        </button>
      </div>
      {busy ? (
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-progress`} className="text-sm">
            {state.kind === 'processing' ? 'Resizing the cover…' : 'Uploading the cover'}
          </label>
          <progress
            id={`${id}-progress`}
            max={100}
            {...(state.kind === 'uploading' ? { value: state.percent } : {})}
            className="w-64"
          >
            {state.kind === 'uploading' ? `${state.percent}%` : null}
          </progress>
        </div>
      ) : null}
      <div aria-live="polite" role="status">
        {state.kind === 'done' ? (
          <p className="text-emerald-800 dark:text-emerald-200">{state.message}</p>
        ) : null}
      </div>
      <div aria-live="assertive" role="alert">
        {state.kind === 'failed' ? <p className="text-red-700 dark:text-red-300">{state.message}</p> : null}
      </div>
    </form>
  )
}
