/** Inline SVG icons (no icon font, no CDN). Decorative: the control that holds one carries the name. */
type IconProps = { className?: string }

const base = {
  'aria-hidden': true,
  focusable: false,
  fill: 'none',
  stroke: 'currentColor',
  strokeWidth: 1.8,
  strokeLinecap: 'round',
  strokeLinejoin: 'round',
  viewBox: '0 0 24 24',
} as const

export function GearIcon({ className = 'size-6' }: IconProps) {
  return (
    <svg {...base} className={className}>
      <path d="M10.3 3.3a1.7 1.7 0 0 1 3.4 0l.2 1.1a1.7 1.7 0 0 0 2.5 1l1-.6a1.7 1.7 0 0 1 2.4 2.4l-.6 1a1.7 1.7 0 0 0 1 2.5l1.1.2a1.7 1.7 0 0 1 0 3.4l-1.1.2a1.7 1.7 0 0 0-1 2.5l.6 1a1.7 1.7 0 0 1-2.4 2.4l-1-.6a1.7 1.7 0 0 0-2.5 1l-.2 1.1a1.7 1.7 0 0 1-3.4 0l-.2-1.1a1.7 1.7 0 0 0-2.5-1l-1 .6a1.7 1.7 0 0 1-2.4-2.4l.6-1a1.7 1.7 0 0 0-1-2.5l-1.1-.2a1.7 1.7 0 0 1 0-3.4l1.1-.2a1.7 1.7 0 0 0 1-2.5l-.6-1a1.7 1.7 0 0 1 2.4-2.4l1 .6a1.7 1.7 0 0 0 2.5-1z" />
      <circle cx="12" cy="12" r="3" />
    </svg>
  )
}

export function SearchIcon({ className = 'size-6' }: IconProps) {
  return (
    <svg {...base} className={className}>
      <circle cx="11" cy="11" r="7" />
      <path d="m20 20-4-4" />
    </svg>
  )
}

export function CartIcon({ className = 'size-6' }: IconProps) {
  return (
    <svg {...base} className={className}>
      <path d="M3 4h2l2.4 11.2a1 1 0 0 0 1 .8h9.2a1 1 0 0 0 1-.8L20 8H6.2" />
      <circle cx="9" cy="20" r="1.3" />
      <circle cx="18" cy="20" r="1.3" />
    </svg>
  )
}

export function PersonIcon({ className = 'size-6' }: IconProps) {
  return (
    <svg {...base} className={className}>
      <circle cx="12" cy="8" r="4" />
      <path d="M4 21a8 8 0 0 1 16 0" />
    </svg>
  )
}

export function StarIcon({ className = 'size-5', filled }: IconProps & { filled: boolean }) {
  return (
    <svg {...base} fill={filled ? 'currentColor' : 'none'} strokeWidth={1.5} className={className}>
      <path d="m12 3 2.7 5.6 6.1.9-4.4 4.3 1 6.1L12 17l-5.4 2.9 1-6.1-4.4-4.3 6.1-.9z" />
    </svg>
  )
}

export function HeartIcon({ className = 'size-6', filled }: IconProps & { filled: boolean }) {
  return (
    <svg {...base} fill={filled ? 'currentColor' : 'none'} className={className}>
      <path d="M12 20s-7.5-4.6-9.2-9.3C1.6 7.3 3.8 4 7.2 4c2 0 3.6 1.1 4.8 2.8C13.2 5.1 14.8 4 16.8 4c3.4 0 5.6 3.3 4.4 6.7C19.5 15.4 12 20 12 20z" />
    </svg>
  )
}

export function InstagramIcon({ className = 'size-5' }: IconProps) {
  return (
    <svg {...base} className={className}>
      <rect x="3" y="3" width="18" height="18" rx="5" />
      <circle cx="12" cy="12" r="4" />
      <circle cx="17.5" cy="6.5" r="0.8" fill="currentColor" />
    </svg>
  )
}

export function XIcon({ className = 'size-5' }: IconProps) {
  return (
    <svg {...base} className={className}>
      <path d="M4 4l16 16M20 4 4 20" />
    </svg>
  )
}

export function GitHubIcon({ className = 'size-5' }: IconProps) {
  return (
    <svg {...base} className={className}>
      <path d="M9 19c-4.3 1.4-4.3-2.5-6-3m12 5v-3.5c0-1 .1-1.4-.5-2 2.8-.3 5.5-1.4 5.5-6a4.6 4.6 0 0 0-1.3-3.2 4.2 4.2 0 0 0-.1-3.2s-1.1-.3-3.5 1.3a12.3 12.3 0 0 0-6.2 0C6.5 2.8 5.4 3.1 5.4 3.1a4.2 4.2 0 0 0-.1 3.2A4.6 4.6 0 0 0 4 9.5c0 4.6 2.7 5.7 5.5 6-.6.6-.6 1.2-.5 2V21" />
    </svg>
  )
}
