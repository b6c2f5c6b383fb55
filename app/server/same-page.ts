/**
 * True when a request was sent from a page at the same path of this site (`ownHosts`): the page's own form
 * posted and was redirected back to it (post-redirect-get without JavaScript), or React Router revalidating the
 * page's loaders after an action. Neither is a new view of the page, whatever analytics counts. Same-origin
 * requests carry their page's whole URL under the store's `strict-origin-when-cross-origin` policy.
 */
export function isFromSamePage(
  referer: string | null | undefined,
  path: string,
  ownHosts: string[],
): boolean {
  if (!referer) return false
  try {
    const from = new URL(referer)
    const own = ownHosts.map((host) => host.toLowerCase())
    return own.includes(from.hostname.toLowerCase()) && from.pathname === path
  } catch {
    return false
  }
}
