/** The size of a book's cover drawn as PNG (`/books/<slug>/cover.png`, cover-png.server.ts). */
export const COVER_PNG_WIDTH = 400
export const COVER_PNG_HEIGHT = 600
