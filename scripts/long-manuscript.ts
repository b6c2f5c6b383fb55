/**
 * A long computer-science manuscript: 36 chapters of prose (varied words, so no two paragraphs are alike) with
 * a listing in each section — about 120,000 words, some 300 pages in the store's PDF.
 */
export function longManuscript(): string {
  const words = (
    'the request handler reads a query from the database and returns a response whose template renders ' +
    'each field with care because the cache keeps a copy of the page until a model changes and a signal ' +
    'tells the view to build it again while the tests check every path through the code'
  ).split(' ')
  let seed = 7
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648)
  const paragraph = () => {
    const sentence = () => {
      const length = 12 + (next() % 14)
      const text = Array.from({ length }, () => words[next() % words.length]).join(' ')
      return `${text[0]!.toUpperCase()}${text.slice(1)}.`
    }
    return Array.from({ length: 6 }, sentence).join(' ')
  }
  const chapters: string[] = []
  for (let chapter = 1; chapter <= 36; chapter++) {
    const sections: string[] = [`# Chapter ${chapter}: Views, models and caches, part ${chapter}`]
    for (let section = 1; section <= 6; section++) {
      sections.push(`## Section ${chapter}.${section}`)
      for (let count = 0; count < 5; count++) sections.push(paragraph())
      sections.push(
        '```python\n' +
          `def view_${chapter}_${section}(request):\n` +
          `    books = Book.objects.filter(published=True).order_by("-updated")[:${section * 10}]\n` +
          '    return render(request, "books/list.html", {"books": books})\n' +
          '```',
      )
    }
    chapters.push(sections.join('\n\n'))
  }
  return `${chapters.join('\n\n')}\n`
}
