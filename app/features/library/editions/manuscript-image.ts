/**
 * Images in a manuscript: PNG or JPEG, embedded in the text as a `data:` URI, so a manuscript (a draft, an
 * edition's stored text, an uploaded file) is always the whole book and an edition can be rendered again from it.
 * The decoder reads only what the renderers need: the type and the pixel size.
 */

export type ManuscriptImage = {
  mediaType: 'image/png' | 'image/jpeg'
  bytes: Uint8Array
  /** In pixels. */
  width: number
  height: number
}

/** The largest image a manuscript may embed (decoded): an EPUB chapter stays small enough for any reader. */
export const maxImageBytes = 1024 * 1024

const dataUriPattern = /^data:(image\/png|image\/jpeg);base64,([A-Za-z0-9+/]+={0,2})$/

/** Decodes a `data:image/png;base64,…` or `data:image/jpeg;base64,…` URI, or says in a sentence why not. */
export function decodeImageDataUri(src: string): ManuscriptImage | string {
  const match = dataUriPattern.exec(src)
  if (!match) {
    return src.startsWith('data:')
      ? 'only PNG and JPEG images are supported, as data:image/png;base64,… or data:image/jpeg;base64,…'
      : `embed the image as a data: URI (data:image/png;base64,…); files beside the manuscript are not read`
  }
  const [, declared, base64 = ''] = match
  if (base64.length % 4 !== 0) return 'the image data is not valid base64'
  if ((base64.length / 4) * 3 > maxImageBytes + 2) {
    return `the image is larger than ${maxImageBytes / 1024} KB: make it smaller`
  }
  const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0))
  const size = declared === 'image/png' ? pngSize(bytes) : jpegSize(bytes)
  if (!size) return `the image data is not a ${declared === 'image/png' ? 'PNG' : 'JPEG'} image`
  if (size.width < 1 || size.height < 1 || size.width > 10_000 || size.height > 10_000) {
    return `the image is ${size.width} × ${size.height} pixels (at most 10,000 on a side)`
  }
  return { mediaType: declared as ManuscriptImage['mediaType'], bytes, ...size }
}

type Size = { width: number; height: number }

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** A PNG's size from its IHDR chunk, which must come first. */
function pngSize(bytes: Uint8Array): Size | null {
  if (bytes.length < 33 || pngSignature.some((byte, index) => bytes[index] !== byte)) return null
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (String.fromCharCode(...bytes.subarray(12, 16)) !== 'IHDR') return null
  return { width: view.getUint32(16), height: view.getUint32(20) }
}

/** A JPEG's size from its first start-of-frame segment. */
function jpegSize(bytes: Uint8Array): Size | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let offset = 2
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return null
    const marker = bytes[offset + 1]!
    if (marker === 0xff) {
      offset++
      continue
    }
    const length = view.getUint16(offset + 2)
    // SOF0–SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
    if (isFrame) {
      if (offset + 9 > bytes.length) return null
      return { height: view.getUint16(offset + 5), width: view.getUint16(offset + 7) }
    }
    if (marker === 0xd9 || marker === 0xda) return null
    offset += 2 + length
  }
  return null
}
