/**
 * True for React Router's own fetch of a route (a fetcher or client navigation: '/cart.data'), false for a
 * plain document request (a form posted with JavaScript off). With `v8_passThroughRequests` the request
 * keeps its '.data' URL while `url` is the normalised one.
 */
export function isDataRequest(request: Request, url: URL): boolean {
  return new URL(request.url).pathname !== url.pathname
}
