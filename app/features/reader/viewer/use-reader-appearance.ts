import { useState } from 'react'
import type { Theme } from '#app/features/theme/theme.ts'
import type { Appearance } from './book-viewer.ts'
import { DEFAULT_FONT_SIZE, FONT_SIZES, readerThemes, type ReaderTheme } from './section-styles.ts'

const THEME_KEY = 'codebook.reader.theme'
const FONT_SIZE_KEY = 'codebook.reader.fontSize'

/** The store's theme as the book's: 'system' is whatever the device prefers now. */
function themeFromStore(storeTheme: Theme): ReaderTheme {
  if (storeTheme !== 'system') return storeTheme
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'
}

/**
 * The book's theme and text size: the store's theme (as the header sets it) until the reader picks one for
 * books (sepia, say), kept in this browser with the text size. Runs only in the browser (the reader is
 * rendered there alone).
 */
export function useReaderAppearance(storeTheme: Theme) {
  const [chosen, setChosen] = useState(() => {
    const theme = localStorage.getItem(THEME_KEY)
    const fontSize = Number(localStorage.getItem(FONT_SIZE_KEY))
    return {
      theme: readerThemes.includes(theme as ReaderTheme) ? (theme as ReaderTheme) : null,
      fontSize: FONT_SIZES.includes(fontSize as (typeof FONT_SIZES)[number]) ? fontSize : DEFAULT_FONT_SIZE,
    }
  })
  const appearance: Appearance = {
    theme: chosen.theme ?? themeFromStore(storeTheme),
    fontSize: chosen.fontSize,
  }
  const choose = (next: Appearance) => {
    const theme = next.theme === appearance.theme ? chosen.theme : next.theme
    if (theme) localStorage.setItem(THEME_KEY, theme)
    localStorage.setItem(FONT_SIZE_KEY, String(next.fontSize))
    setChosen({ theme, fontSize: next.fontSize })
  }
  return [appearance, choose] as const
}
