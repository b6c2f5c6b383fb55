import { lazy, Suspense } from 'react'
import { useLocation } from 'react-router'
import { useOptionalUser } from '../use-user.ts'

// Only an account with an unconfirmed email sees it: everyone else's pages never load its code.
const UnverifiedEmailNotice = lazy(() =>
  import('./unverified-email-notice.tsx').then((notice) => ({ default: notice.UnverifiedEmailNotice })),
)

/** The notice under the header of every page but the account page (which shows it in place). */
export function UnverifiedEmailBanner() {
  const user = useOptionalUser()
  const { pathname } = useLocation()
  if (!user || user.isGuest || user.emailVerified || pathname === '/account') return null
  return (
    <div className="mx-auto w-full max-w-7xl px-4 pt-4">
      <Suspense>
        <UnverifiedEmailNotice email={user.email} />
      </Suspense>
    </div>
  )
}
