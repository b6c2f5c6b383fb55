/**
 * How a book that comes in a bundle on the cart is named among the cart's book ids (`listCartBookIds`):
 * `bundle:<bundle id>:<book id>`. These helpers are the only places that know the format.
 */
export function bundleBookKey(bundleId: string, bookId: string): string {
  return `bundle:${bundleId}:${bookId}`
}

/** Whether a cart key is one of this bundle's books. */
export function isKeyOfBundle(key: string, bundleId: string): boolean {
  return key.startsWith(`bundle:${bundleId}:`)
}

/** The book a cart key names: the key itself for a book of its own, the last part for a bundle's book. */
export function bookIdOfKey(key: string): string {
  return key.slice(key.lastIndexOf(':') + 1)
}
