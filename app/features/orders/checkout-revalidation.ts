import type { ShouldRevalidateFunctionArgs } from 'react-router'

/**
 * A checkout post is answered by loading the page's data again, refused posts included (React Router skips
 * that after a 4xx by default): a declined card needs a fresh attempt id so that the next card is a new
 * attempt, a changed cart its new key, and the header's badge the cart as the post left it (books the buyer
 * owns are taken out even when the post is refused). Without JavaScript the page is rendered anew anyway.
 * Used by the checkout route and the root (the badge).
 */
export function revalidateAfterCheckoutPost({
  formMethod,
  formAction,
  defaultShouldRevalidate,
}: ShouldRevalidateFunctionArgs): boolean {
  // '/checkout', or a gift's '/checkout?gift=<id>'.
  if (formMethod?.toUpperCase() === 'POST' && /^\/checkout(\?|$)/.test(formAction ?? '')) return true
  return defaultShouldRevalidate
}
