import { Form } from 'react-router'

/**
 * 'Sign in with GitHub', 'Sign in with <OIDC provider>': each a plain form post (works without JavaScript)
 * whose answer is a 303 to the provider. Nothing is shown when no provider is configured.
 */
export function ProviderButtons({
  providers,
  action,
  redirectTo,
  intent = 'provider',
  verb = 'Sign in with',
}: {
  providers: { id: string; name: string }[]
  action: string
  redirectTo: string | undefined
  intent?: string
  verb?: string
}) {
  if (providers.length === 0) return null
  return (
    <div className="mt-3 flex flex-col gap-3">
      {providers.map((provider) => (
        <Form key={provider.id} method="post" action={action} className="flex flex-col">
          <input type="hidden" name="intent" value={intent} />
          <input type="hidden" name="provider" value={provider.id} />
          {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
          <button
            type="submit"
            className="inline-flex items-center justify-center rounded-lg border border-slate-400 px-4 py-2.5 text-sm font-medium hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-700 dark:border-gray-500 dark:hover:bg-gray-800 dark:focus-visible:outline-sky-300"
          >
            {verb} {provider.name}
          </button>
        </Form>
      ))}
    </div>
  )
}
