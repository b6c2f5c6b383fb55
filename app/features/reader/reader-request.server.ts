import type { RouterContextProvider } from 'react-router'
import { getSessionUser, type SessionUser } from '#app/features/identity/session.server.ts'
import { getAppContext, type AppContext } from '#app/server/context.server.ts'
import { jsonProblem } from '#app/server/json.server.ts'
import { findReaderBook, readerAccess, type ReaderBook } from './reader-books.server.ts'

type Args = { request: Request; context: Readonly<RouterContextProvider>; params: { slug?: string } }

export type OwnerRequest = { app: AppContext; user: SessionUser; book: ReaderBook }

/**
 * The signed-in owner of the book in the URL, for the reader's JSON endpoints; otherwise the JSON answer to
 * give: 404 for a book that is not there, 401 signed out (or a guest), 403 for anyone who does not own it now
 * (a refund takes the book back at once). Never a page: these are called by the reader's script.
 */
export async function ownerOrProblem(args: Args): Promise<OwnerRequest | Response> {
  const app = getAppContext(args.context)
  const book = await findReaderBook(app.db, (args.params.slug ?? '').toLowerCase())
  if (!book) return jsonProblem(404, 'There is no such eBook.')
  const user = await getSessionUser(args)
  if (!user || user.isGuest) return jsonProblem(401, 'Please log in with the account that bought this eBook.')
  const access = await readerAccess(app.db, book, user.id)
  if (!access.whole) return jsonProblem(403, 'Only the buyer of this eBook can read it whole.')
  return { app, user, book }
}

/**
 * A 400 for a position or an annotation placed in an edition the book does not have (yet): the reader only
 * ever reads published editions, up to the one owners download now.
 */
export function unknownEdition(edition: number | undefined, book: ReaderBook): Response | null {
  if (edition === undefined || edition <= book.edition) return null
  return jsonProblem(400, 'Some fields are not right.', {
    edition: 'There is no such edition of this eBook.',
  })
}
