import { z } from 'zod'

/** The heart's add/remove form (checked on the server): the same rules as the cart's form. */
export const WishlistFormSchema = z.object({
  intent: z.enum(['add', 'remove'], { error: 'Unknown wishlist action.' }),
  bookId: z.uuid({ error: 'We could not find that eBook. Please reload the page and try again.' }),
  redirectTo: z.string().optional(),
})

/** The account's wishlist page's settings form: share it (or stop), the price mails on or off. */
export const WishlistSettingsSchema = z.object({
  intent: z.enum(['share', 'stop-sharing', 'notify-on', 'notify-off'], {
    error: 'Unknown wishlist setting.',
  }),
})
