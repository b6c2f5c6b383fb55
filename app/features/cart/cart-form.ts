import { z } from 'zod'

/** The add/remove form every 'Add To Cart' / 'Remove Item' button posts to /cart (checked on the server). */
export const CartFormSchema = z.object({
  intent: z.enum(['add', 'remove'], { error: 'Unknown cart action.' }),
  bookId: z.uuid({ error: 'We could not find that eBook. Please reload the page and try again.' }),
  redirectTo: z.string().optional(),
})
