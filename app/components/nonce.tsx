import { createContext, useContext } from 'react'

/**
 * The response's CSP nonce, for the scripts React Router renders. Browsers hide nonce attributes from
 * scripts, so on the client it is '' and hydration does not compare it.
 */
const NonceContext = createContext('')

export const NonceProvider = NonceContext.Provider

export function useNonce() {
  return useContext(NonceContext)
}
