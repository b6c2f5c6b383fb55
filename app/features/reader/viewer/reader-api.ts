/**
 * The reader's calls to the store (issue 29's contract): the book's file, the owner's place and notes, errata.
 * Plain checks instead of zod: this runs in the browser, where zod's probe for eval breaks the CSP.
 * Writes are same-origin fetches, which send the Origin the store's cross-site check wants.
 */

export type ReaderMode = 'owner' | 'sample'

export type SavedPosition = {
  edition: number
  cfi: string
  fraction: number
  quote: string
  updatedAt: string
}

export type Annotation = {
  id: string
  kind: 'bookmark' | 'highlight'
  edition: number
  cfi: string
  quote: string
  note: string
  createdAt: string
}

export type ReadingState = { position: SavedPosition | null; annotations: Annotation[] }

export type PositionUpdate = { edition: number; cfi: string; fraction: number; quote: string; at: string }

export type NewAnnotation = Omit<Annotation, 'id' | 'createdAt'>

export type ErratumReport = {
  quote: string
  location: string
  description: string
  suggestion: string
  credit: string
}

export type ErratumOutcome =
  { ok: true } | { ok: false; errors: Partial<Record<keyof ErratumReport, string>>; message?: string }

export function readerUrls(slug: string) {
  const base = `/read/${encodeURIComponent(slug)}`
  return {
    owner: `${base}`,
    sample: `${base}/sample`,
    ownerEpub: `${base}/book.epub`,
    sampleEpub: `${base}/sample.epub`,
    state: `${base}/state.json`,
    position: `${base}/position`,
    annotations: `${base}/annotations`,
    annotation: (id: string) => `${base}/annotations/${encodeURIComponent(id)}`,
    markdown: `${base}/annotations.md`,
    errata: `/books/${encodeURIComponent(slug)}/errata`,
  }
}

export class ReaderRequestError extends Error {
  constructor(
    readonly status: number,
    what: string,
  ) {
    super(`${what}: the store answered ${status}`)
  }
}

const bookFileUrl = (slug: string, mode: ReaderMode) =>
  mode === 'owner' ? readerUrls(slug).ownerEpub : readerUrls(slug).sampleEpub

/**
 * Requests made before the reader asks for them (`fetchBookEarly`), each taken by the first call for its URL:
 * the book's file, and the owner's place and notes.
 */
const early = new Map<string, Promise<Response>>()

/** The response to `url`: the one asked for early, else a new request. */
function fetchOnce(url: string, init: RequestInit): Promise<Response> {
  const started = early.get(url)
  early.delete(url)
  return started ?? fetch(url, init)
}

const stateInit: RequestInit = { headers: { Accept: 'application/json' } }

/**
 * Starts fetching the book's file (and the owner's place and notes) as soon as the reader's page runs scripts,
 * beside the reader's own modules, instead of once the page has hydrated and the reader has rendered (decision
 * 041): about a second and a half earlier on a phone. Called only on the reader's page, for the book it shows:
 * each opening still fetches the file once.
 */
export function fetchBookEarly(slug: string, mode: ReaderMode) {
  const urls = [bookFileUrl(slug, mode), ...(mode === 'owner' ? [readerUrls(slug).state] : [])]
  for (const url of urls) {
    const response = fetch(url, url.endsWith('.json') ? stateInit : {})
    // Taken later, or not at all (the reader failed to load): a failure is the reader's to report then.
    response.catch(() => {})
    early.set(url, response)
  }
}

/** The EPUB as a file foliate-js can open: the owner's stamped copy, or the free sample. */
export async function fetchBookFile(slug: string, mode: ReaderMode, signal?: AbortSignal): Promise<File> {
  const response = await fetchOnce(bookFileUrl(slug, mode), { signal })
  if (!response.ok) throw new ReaderRequestError(response.status, 'the book could not be loaded')
  return new File([await response.blob()], `${slug}.epub`, { type: 'application/epub+zip' })
}

export async function fetchReadingState(slug: string, signal?: AbortSignal): Promise<ReadingState> {
  const response = await fetchOnce(readerUrls(slug).state, { ...stateInit, signal })
  if (!response.ok) throw new ReaderRequestError(response.status, 'your place and notes could not be loaded')
  const body: unknown = await response.json()
  const record = isRecord(body) ? body : {}
  return {
    position: isPosition(record.position) ? record.position : null,
    annotations: Array.isArray(record.annotations) ? record.annotations.filter(isAnnotation) : [],
  }
}

export async function savePosition(slug: string, position: PositionUpdate, keepalive = false) {
  const response = await send(readerUrls(slug).position, 'PUT', position, keepalive)
  if (!response.ok) throw new ReaderRequestError(response.status, 'your place could not be saved')
}

export async function createAnnotation(slug: string, annotation: NewAnnotation): Promise<Annotation> {
  const response = await send(readerUrls(slug).annotations, 'POST', annotation)
  return annotationFrom(response, 'the note could not be saved')
}

export async function updateAnnotationNote(slug: string, id: string, note: string): Promise<Annotation> {
  const response = await send(readerUrls(slug).annotation(id), 'PATCH', { note })
  return annotationFrom(response, 'the note could not be saved')
}

/** Moves a bookmark or highlight into this edition, where its quote was found again. */
export async function moveAnnotation(slug: string, id: string, place: { edition: number; cfi: string }) {
  const response = await send(readerUrls(slug).annotation(id), 'PATCH', place)
  return annotationFrom(response, 'the note could not be moved to this edition')
}

export async function deleteAnnotation(slug: string, id: string) {
  const response = await send(readerUrls(slug).annotation(id), 'DELETE')
  if (!response.ok && response.status !== 404)
    throw new ReaderRequestError(response.status, 'the note could not be deleted')
}

export async function reportErratum(slug: string, report: ErratumReport): Promise<ErratumOutcome> {
  const response = await send(readerUrls(slug).errata, 'POST', report)
  if (response.ok) return { ok: true }
  if (response.status === 400) {
    const body: unknown = await response.json().catch(() => null)
    const errors = isRecord(body) && isRecord(body.errors) ? body.errors : {}
    return {
      ok: false,
      errors: Object.fromEntries(Object.entries(errors).filter(([, value]) => typeof value === 'string')),
    }
  }
  if (response.status === 429)
    return {
      ok: false,
      errors: {},
      message: 'You have reported many errata just now. Please try again in a little while.',
    }
  if (response.status === 403)
    return { ok: false, errors: {}, message: 'Please log in with the account that owns this eBook.' }
  return { ok: false, errors: {}, message: 'The report could not be sent. Please try again in a moment.' }
}

function send(url: string, method: string, body?: unknown, keepalive = false) {
  return fetch(url, {
    method,
    keepalive,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

async function annotationFrom(response: Response, what: string): Promise<Annotation> {
  if (!response.ok) throw new ReaderRequestError(response.status, what)
  const body: unknown = await response.json()
  if (isRecord(body) && isAnnotation(body.annotation)) return body.annotation
  throw new ReaderRequestError(response.status, `${what} (unexpected answer)`)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isPosition(value: unknown): value is SavedPosition {
  return (
    isRecord(value) &&
    typeof value.edition === 'number' &&
    typeof value.cfi === 'string' &&
    typeof value.fraction === 'number' &&
    typeof value.quote === 'string'
  )
}

function isAnnotation(value: unknown): value is Annotation {
  return (
    isRecord(value) &&
    typeof value.id === 'string' &&
    (value.kind === 'bookmark' || value.kind === 'highlight') &&
    typeof value.edition === 'number' &&
    typeof value.cfi === 'string' &&
    typeof value.quote === 'string' &&
    typeof value.note === 'string'
  )
}
