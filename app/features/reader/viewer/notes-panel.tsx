import { useId, useState } from 'react'
import { controlClass } from '#app/components/ui/field.tsx'
import type { Annotation } from './reader-api.ts'
import { chromeButton, linkClass } from './reader-styles.ts'

/**
 * The owner's bookmarks and highlights in this book, in reading order of their saving: each can be gone to,
 * its note edited, or deleted; all of them exported as Markdown. One from another edition is listed with it
 * (the store finds its place again in this one; until it has, it has none here).
 */
export function NotesList({
  annotations,
  edition,
  exportUrl,
  onGo,
  onSaveNote,
  onDelete,
}: {
  annotations: Annotation[]
  edition: number
  exportUrl: string
  onGo: (annotation: Annotation) => void
  onSaveNote: (annotation: Annotation, note: string) => Promise<boolean>
  onDelete: (annotation: Annotation) => void
}) {
  return (
    <>
      <a href={exportUrl} className={`${linkClass} text-sm`}>
        Export as Markdown
      </a>
      {annotations.length === 0 ? (
        <p className="text-sm text-slate-700 dark:text-slate-300">
          No bookmarks or highlights yet. Select some text to highlight it, or bookmark a page.
        </p>
      ) : (
        <ol className="flex flex-col gap-3">
          {annotations.map((annotation) => (
            <NoteItem
              key={annotation.id}
              annotation={annotation}
              placed={annotation.edition === edition}
              onGo={onGo}
              onSaveNote={onSaveNote}
              onDelete={onDelete}
            />
          ))}
        </ol>
      )}
    </>
  )
}

function NoteItem({
  annotation,
  placed,
  onGo,
  onSaveNote,
  onDelete,
}: {
  annotation: Annotation
  placed: boolean
  onGo: (annotation: Annotation) => void
  onSaveNote: (annotation: Annotation, note: string) => Promise<boolean>
  onDelete: (annotation: Annotation) => void
}) {
  const noteId = useId()
  const [editing, setEditing] = useState(false)
  const kind = annotation.kind === 'bookmark' ? 'Bookmark' : 'Highlight'
  return (
    <li className="flex flex-col gap-1 rounded-md border border-slate-300 p-2 text-sm dark:border-gray-600">
      <p className="font-semibold">
        {kind}
        {placed ? null : <span className="font-normal"> · from edition {annotation.edition}</span>}
      </p>
      {annotation.quote ? <blockquote className="italic">“{annotation.quote}”</blockquote> : null}
      {editing ? (
        <form
          className="flex flex-col gap-1"
          onSubmit={async (event) => {
            event.preventDefault()
            const note = new FormData(event.currentTarget).get('note')?.toString() ?? ''
            if (await onSaveNote(annotation, note)) setEditing(false)
          }}
        >
          <label htmlFor={noteId} className="font-medium">
            Note
          </label>
          <textarea
            id={noteId}
            name="note"
            rows={3}
            defaultValue={annotation.note}
            className={controlClass}
          />
          <div className="flex gap-2">
            <button type="submit" className={chromeButton}>
              Save note
            </button>
            <button type="button" className={chromeButton} onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : annotation.note ? (
        <p className="whitespace-pre-line">{annotation.note}</p>
      ) : null}
      {editing ? null : (
        <div className="flex flex-wrap gap-2">
          <button type="button" className={chromeButton} disabled={!placed} onClick={() => onGo(annotation)}>
            Go to<span className="sr-only"> this {kind.toLowerCase()}</span>
          </button>
          <button type="button" className={chromeButton} onClick={() => setEditing(true)}>
            {annotation.note ? 'Edit note' : 'Add note'}
          </button>
          <button type="button" className={chromeButton} onClick={() => onDelete(annotation)}>
            Delete<span className="sr-only"> this {kind.toLowerCase()}</span>
          </button>
        </div>
      )}
    </li>
  )
}
