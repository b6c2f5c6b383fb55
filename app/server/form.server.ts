import { data } from 'react-router'

/**
 * The posted form, or a 400 the error boundary shows kindly. The host already refuses bodies that are not
 * forms (415) or too large (413) (server/http.ts); what is left to fail here is a malformed multipart body,
 * which `request.formData()` rejects with a TypeError that would otherwise be a 500.
 */
export async function readForm(request: Request): Promise<FormData> {
  try {
    return await request.formData()
  } catch {
    throw data(
      { title: 'This form could not be read', message: 'Please go back, reload the page and send it again.' },
      { status: 400 },
    )
  }
}
