import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import satori from 'satori'
import sharp from 'sharp'
import { findProjectRoot } from '#app/server/project-root.server.ts'
import { OG_IMAGE_HEIGHT, OG_IMAGE_WIDTH } from './og-image.ts'

/**
 * Open Graph images, 1200×630 PNG: satori lays out the card (text as glyph outlines, with Inter from
 * @fontsource/inter, so nothing is fetched at run time) into SVG, and sharp, already the store's image library,
 * turns it into PNG (docs/decisions/020-seo.md). Rendering takes a few hundred milliseconds, so each image is
 * kept in memory under its book's id, version and update time: an edit makes a new key, the old one ages out.
 */

export type RenderedImage = { png: Buffer; etag: string }

export type OgBook = {
  id: string
  version: number
  updatedAt: Date
  title: string
  author: string
  price: string
}

const MAX_CACHED = 200
const cache = new Map<string, Promise<RenderedImage>>()

/** The book's card, from the cache when this version was drawn before; `cover` is read only on a miss. */
export function bookOgImagePng(
  book: OgBook,
  cover: () => Promise<Uint8Array | null>,
): Promise<RenderedImage> {
  return cached(`${book.id}:${book.version}:${book.updatedAt.getTime()}`, async () =>
    render(bookCard(book, await coverDataUrl(await cover()))),
  )
}

/** The store's own card, for every page that is not a book's. */
export function storeOgImagePng(): Promise<RenderedImage> {
  return cached('store', () => render(storeCard()))
}

/** The PNG with its ETag; a client that has this version gets a 304 without the bytes. */
export function imageResponse(request: Request, image: RenderedImage): Response {
  const headers = {
    'Content-Type': 'image/png',
    // A day in shared caches; an edited book's pages point at a new URL (?v=<version>) anyway.
    'Cache-Control': 'public, max-age=86400',
    ETag: image.etag,
    'X-Content-Type-Options': 'nosniff',
  }
  const known = request.headers.get('If-None-Match')
  if (known && known.split(',').some((tag) => tag.trim() === image.etag))
    return new Response(null, { status: 304, headers })
  return new Response(new Uint8Array(image.png), {
    headers: { ...headers, 'Content-Length': String(image.png.length) },
  })
}

/** Forgets every drawn image (tests measure a cold render with it). */
export function clearOgImageCache(): void {
  cache.clear()
}

function cached(key: string, make: () => Promise<RenderedImage>): Promise<RenderedImage> {
  const hit = cache.get(key)
  if (hit) {
    // Most recently used last: the Map's first key is the one to drop.
    cache.delete(key)
    cache.set(key, hit)
    return hit
  }
  // The promise is kept, so that requests arriving during the render share it; a failure is not kept.
  const made = make()
  cache.set(key, made)
  made.catch(() => cache.delete(key))
  while (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!)
  return made
}

type Node = { type: string; props: Record<string, unknown> & { style?: Record<string, unknown> } }

function el(type: string, style: Record<string, unknown>, children?: unknown, props = {}): Node {
  return { type, props: { ...props, style, children } }
}

const colors = {
  background: '#0f172a',
  text: '#f8fafc',
  muted: '#cbd5e1',
  price: '#7dd3fc',
  brand: '#93c5fd',
}
const COVER_HEIGHT = 510

function bookCard(book: OgBook, cover: string | null): Node {
  return frame([
    cover
      ? el('img', { borderRadius: 12, height: COVER_HEIGHT }, undefined, { src: cover, height: COVER_HEIGHT })
      : null,
    el(
      'div',
      {
        display: 'flex',
        flexDirection: 'column',
        justifyContent: 'space-between',
        flex: 1,
        minWidth: 0,
        height: COVER_HEIGHT,
      },
      [
        el('div', { fontSize: 32, fontWeight: 700, color: colors.brand }, 'CodeBook'),
        el('div', { display: 'flex', flexDirection: 'column', gap: 20 }, [
          el(
            'div',
            { fontSize: book.title.length > 50 ? 48 : 60, fontWeight: 700, lineHeight: 1.1 },
            clip(book.title, 110),
          ),
          el('div', { fontSize: 34, color: colors.muted }, `by ${clip(book.author, 60)}`),
        ]),
        el('div', { fontSize: 64, fontWeight: 700, color: colors.price }, book.price),
      ],
    ),
  ])
}

function storeCard(): Node {
  return frame([
    el('div', { display: 'flex', flexDirection: 'column', justifyContent: 'center', gap: 28 }, [
      el('div', { fontSize: 96, fontWeight: 700, color: colors.brand }, 'CodeBook'),
      el('div', { fontSize: 56, fontWeight: 700 }, 'The Ultimate eBook Store'),
      el(
        'div',
        { fontSize: 36, color: colors.muted },
        'Computer-science eBooks, rated by readers, downloaded at once.',
      ),
    ]),
  ])
}

function frame(children: unknown[]): Node {
  return el(
    'div',
    {
      width: OG_IMAGE_WIDTH,
      height: OG_IMAGE_HEIGHT,
      boxSizing: 'border-box',
      display: 'flex',
      alignItems: 'center',
      gap: 56,
      padding: 60,
      backgroundColor: colors.background,
      color: colors.text,
      fontFamily: 'Inter',
    },
    children.filter(Boolean),
  )
}

async function render(card: Node): Promise<RenderedImage> {
  // satori's types want a React element; this plain object is the shape it reads.
  const svg = await satori(card as unknown as Parameters<typeof satori>[0], {
    width: OG_IMAGE_WIDTH,
    height: OG_IMAGE_HEIGHT,
    fonts: fonts(),
  })
  const png = await sharp(Buffer.from(svg)).png({ compressionLevel: 9 }).toBuffer()
  return { png, etag: `"${crypto.createHash('sha256').update(png).digest('base64url').slice(0, 27)}"` }
}

/** The cover as a PNG data URL at the card's height (satori draws PNG and JPEG; covers may be SVG). */
async function coverDataUrl(bytes: Uint8Array | null): Promise<string | null> {
  if (!bytes) return null
  try {
    const png = await sharp(bytes, { limitInputPixels: 50_000_000 })
      .resize({ height: COVER_HEIGHT, width: 420, fit: 'inside' })
      .png()
      .toBuffer()
    return `data:image/png;base64,${png.toString('base64')}`
  } catch {
    // A cover sharp cannot read leaves the card without it rather than without an image.
    return null
  }
}

let loadedFonts: Parameters<typeof satori>[1]['fonts'] | undefined

function fonts() {
  if (!loadedFonts) {
    const folder = path.join(findProjectRoot(), 'node_modules', '@fontsource', 'inter', 'files')
    const read = (weight: 400 | 700) => ({
      name: 'Inter',
      data: fs.readFileSync(path.join(folder, `inter-latin-${weight}-normal.woff`)),
      weight,
      style: 'normal' as const,
    })
    loadedFonts = [read(400), read(700)]
  }
  return loadedFonts
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`
}
