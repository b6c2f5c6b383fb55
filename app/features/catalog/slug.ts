/**
 * The kebab-case slug of a text, at most `maxLength` characters: accents folded ('Café' → 'cafe'), anything but
 * a-z and 0-9 a single hyphen, none at either end ('Learn Rust, Fast!' → 'learn-rust-fast'); '' when nothing is
 * left ('C++' → 'c', '!!!' → ''). Books, topics and authors take their page's slug from it.
 */
export function kebabSlug(text: string, maxLength: number): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength)
    .replace(/-+$/, '')
}
