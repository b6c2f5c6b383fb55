import { useEffect, useEffectEvent, useId, useRef, useState } from 'react'

/**
 * A native popover's id, ref and open state, with `onOpen(popover)` run each time it opens. The browser does the
 * opening and closing (also without JavaScript); this mirrors it into React for aria-expanded and focus, also
 * when the visitor opened it before this hydrated.
 */
export function usePopover<T extends HTMLElement>(prefix: string, onOpen: (popover: T) => void) {
  const id = `${prefix}-${useId().replace(/:/g, '')}`
  const ref = useRef<T>(null)
  const [open, setOpen] = useState(false)
  const opened = useEffectEvent(onOpen)
  useEffect(() => {
    const popover = ref.current
    if (!popover) return
    const onToggle = (event: Event) => {
      const isOpen = (event as ToggleEvent).newState === 'open'
      setOpen(isOpen)
      if (isOpen) opened(popover)
    }
    popover.addEventListener('toggle', onToggle)
    // Opened before this component hydrated (the header's menus arrive in a chunk after the page): the browser
    // opened it from the server HTML, and its toggle event came before this listener.
    if (popover.matches(':popover-open')) {
      setOpen(true)
      opened(popover)
    }
    return () => popover.removeEventListener('toggle', onToggle)
  }, [])
  return { id, ref, open }
}
