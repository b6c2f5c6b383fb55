/** How a book that comes in a bundle on the cart is named among the cart's book ids (`listCartBookIds`). */
export function bundleBookKey(bundleId: string, bookId: string): string {
  return `bundle:${bundleId}:${bookId}`
}
