/**
 * The request body the reader's JSON endpoints take, as their routes' `handle` (server/request-bodies.ts): JSON,
 * up to 32 KiB (a highlight with a long note is a few). Not a `.server` module: `handle` reaches the browser.
 */
export const readerJsonBody = { requestBody: { maxBytes: 32 * 1024, anyContentType: true } }
