import { expect, test } from 'vitest'
import { coverMessages, MAX_COVER_BYTES } from '#app/features/catalog/covers.server.ts'
import { MAX_LOGO_BYTES } from '#app/features/settings/logo.server.ts'
import { COVER_UPLOAD_OVERHEAD } from '#app/routes/admin/book-cover.ts'
import { routesBuild } from '#tests/route-build.ts'
import { requestBodyOf } from './request-bodies.ts'
import { compileRoutes } from './route-template.ts'

test('the routes that take more than a small form declare it in their module, in the shape the host reads', async () => {
  const build = await routesBuild()
  const declared = Object.values(build.routes).flatMap((route) => {
    const body = requestBodyOf((route?.module as { handle?: unknown }).handle)
    return body ? [[route!.id, body] as const] : []
  })
  expect(Object.fromEntries(declared)).toEqual({
    'routes/stripe-webhook': { maxBytes: 1024 * 1024, anyContentType: true },
    // The cover's limit is written out in the route (its handle reaches the browser): the feature's own.
    'routes/admin/book-cover': {
      maxBytes: MAX_COVER_BYTES + COVER_UPLOAD_OVERHEAD,
      tooLarge: coverMessages.tooLarge,
    },
    'routes/admin/book-manuscript': { maxBytes: 7 * 1024 * 1024 },
    // An author's photo takes a cover's limits; the settings form a logo of at most 2 MB, with the form around it.
    'routes/admin/author-photo': {
      maxBytes: MAX_COVER_BYTES + 64 * 1024,
      tooLarge: coverMessages.tooLarge,
    },
    'routes/admin/settings': {
      maxBytes: MAX_LOGO_BYTES + 64 * 1024,
      tooLarge: 'This logo is larger than 2 MB. Please upload a smaller image.',
    },
    // The online reader's JSON endpoints (issue 29): a position, an annotation with its note, an erratum.
    'routes/read-position': { maxBytes: 32 * 1024, anyContentType: true },
    'routes/read-annotations': { maxBytes: 32 * 1024, anyContentType: true },
    'routes/read-annotation': { maxBytes: 32 * 1024, anyContentType: true },
    'routes/book-errata': { maxBytes: 32 * 1024, anyContentType: true },
  })
  const match = compileRoutes(build)
  expect(requestBodyOf(match('/Admin/Books/abc/Manuscript')?.handle)?.maxBytes).toBe(7 * 1024 * 1024)
  expect(requestBodyOf(match('/admin/books/abc')?.handle)).toBeUndefined()
})

test('a declaration of another shape is an error, not a silent default', () => {
  expect(requestBodyOf({ title: 'no body declared' })).toBeUndefined()
  expect(() => requestBodyOf({ requestBody: { maxBytes: '1 MB' } })).toThrow(/maxBytes/)
  expect(() => requestBodyOf({ requestBody: { maxBytes: 1024, anyType: true } })).toThrow(/anyType/)
})
