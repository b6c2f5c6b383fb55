import { useRef, type KeyboardEvent, type ReactNode } from 'react'
import { usePopover } from './use-popover.ts'

/**
 * The WAI-ARIA menu-button pattern on a native popover: the browser opens and closes it (also without
 * JavaScript), dismisses it on Escape or a click outside and returns focus to the button; this component
 * adds the keyboard model (arrows, Home/End, type-ahead free) and closes the menu when an item is chosen.
 * Items are elements with role menuitem / menuitemradio inside `children`.
 */
export function MenuButton({
  label,
  icon,
  buttonClassName,
  children,
}: {
  label: string
  icon: ReactNode
  buttonClassName: string
  children: ReactNode
}) {
  const focusOnOpen = useRef<'first' | 'last'>('first')
  const {
    id: menuId,
    ref: menuRef,
    open,
  } = usePopover<HTMLDivElement>('menu', (menu) => {
    const all = itemsOf(menu)
    ;(focusOnOpen.current === 'last' ? all.at(-1) : all[0])?.focus()
    focusOnOpen.current = 'first'
  })

  function onButtonKeyDown(event: KeyboardEvent<HTMLButtonElement>) {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return
    event.preventDefault()
    focusOnOpen.current = event.key === 'ArrowUp' ? 'last' : 'first'
    menuRef.current?.showPopover()
  }

  function onMenuKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const all = itemsOf(event.currentTarget)
    const current = all.indexOf(document.activeElement as HTMLElement)
    const next = {
      ArrowDown: (current + 1) % all.length,
      ArrowUp: (current - 1 + all.length) % all.length,
      Home: 0,
      End: all.length - 1,
    }[event.key]
    if (next !== undefined) {
      event.preventDefault()
      all[next]?.focus()
    } else if (event.key === 'Tab') {
      menuRef.current?.hidePopover()
    }
  }

  return (
    <>
      <button
        type="button"
        className={buttonClassName}
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={menuId}
        popoverTarget={menuId}
        onKeyDown={onButtonKeyDown}
      >
        {icon}
      </button>
      <div
        ref={menuRef}
        id={menuId}
        popover="auto"
        role="menu"
        aria-label={label}
        onKeyDown={onMenuKeyDown}
        onClick={(event) => {
          if ((event.target as HTMLElement).closest('[role^="menuitem"]')) menuRef.current?.hidePopover()
        }}
        className="menu-popover min-w-48 rounded-lg border border-slate-200 bg-white p-1 text-slate-900 shadow-lg dark:border-gray-700 dark:bg-gray-900 dark:text-slate-100"
      >
        {children}
      </div>
    </>
  )
}

function itemsOf(menu: HTMLElement) {
  return [...menu.querySelectorAll<HTMLElement>('[role^="menuitem"]')]
}

export const menuItemClass =
  'flex w-full items-center gap-2 rounded-md px-3 py-2 text-left text-sm hover:bg-slate-100 focus-visible:bg-slate-100 dark:hover:bg-gray-800 dark:focus-visible:bg-gray-800'
