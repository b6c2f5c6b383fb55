/** The fields of a bundle's form in the back office (features/bundles/admin-bundles.server.ts reads them). */
export const bundleFields = ['title', 'slug', 'description', 'price', 'books', 'active'] as const
export type BundleField = (typeof bundleFields)[number]
