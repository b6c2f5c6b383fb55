import { z } from 'zod'

/** A JSON error answer: `{ error }` with the status, plus `{ errors }` (field → message) for bad fields. */
export function jsonProblem(
  status: number,
  error: string,
  errors?: Record<string, string>,
  headers?: HeadersInit,
): Response {
  return Response.json({ error, ...(errors ? { errors } : {}) }, { status, headers })
}

/**
 * The body of a JSON request, checked against `schema`: the value, or the 400 to answer with — a body that is
 * not JSON says so, a value of the wrong shape names each field's first problem (`errors`). The host has
 * already bounded the body's size (the route's `handle.requestBody`, server/request-bodies.ts).
 */
export async function readJson<Schema extends z.ZodType>(
  request: Request,
  schema: Schema,
): Promise<{ ok: true; value: z.infer<Schema> } | { ok: false; response: Response }> {
  let body: unknown
  try {
    body = await request.json()
  } catch {
    return { ok: false, response: jsonProblem(400, 'The body must be JSON.') }
  }
  const parsed = schema.safeParse(body)
  if (parsed.success) return { ok: true, value: parsed.data }
  const errors: Record<string, string> = {}
  for (const issue of parsed.error.issues) {
    const field = issue.path.join('.') || 'body'
    errors[field] ??= issue.message
  }
  return { ok: false, response: jsonProblem(400, 'Some fields are not right.', errors) }
}

/** A text field of a JSON body: trimmed, without NUL characters (PostgreSQL refuses them), at most `max`. */
export function jsonText(max: number, label: string) {
  return z
    .string({ error: `${label} must be text.` })
    .trim()
    .max(max, `${label} must be at most ${max} characters.`)
    .refine((value) => !value.includes('\0'), `${label} must not hold a NUL character.`)
}
