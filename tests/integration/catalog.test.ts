import { eq } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { getBookBySlug, listBooks, listFeaturedBooks } from '#app/features/catalog/catalog.server.ts'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { seedBooks } from '#app/features/catalog/seed-books.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import { test } from '#tests/fixtures.ts'

describe('the seeded catalogue', () => {
  test("holds the seed's seven books with their exact titles, prices and ratings, in the seed's order", async ({
    database,
  }) => {
    const all = await listBooks(database.db)
    expect(all.map((book) => [book.title, book.priceCents, book.rating])).toEqual([
      ['Complete Guide to Backend Development', 9900, expect.any(Number)],
      ['Frontend Fastlane Plan With Projects', 9900, expect.any(Number)],
      ['JavaScript Basics To Advance', 9900, expect.any(Number)],
      ['Basics To Advanced In React', 9900, 5],
      ['Django Framework', 1900, 3],
      ['The Future of Design Systems', 4900, 4],
      ['Build a Blockchain from Scratch in Go', 1900, 4],
    ])
    for (const book of all) {
      expect(book.rating).toBeGreaterThanOrEqual(1)
      expect(book.description).not.toMatch(/lorem ipsum/i)
      expect(book.coverPath).toBe(`/covers/${book.slug}.svg`)
    }
  })

  test('lists the three featured books in their positions', async ({ database }) => {
    const featured = await listFeaturedBooks(database.db)
    expect(featured.map((book) => book.title)).toEqual([
      'Complete Guide to Backend Development',
      'Frontend Fastlane Plan With Projects',
      'JavaScript Basics To Advance',
    ])
  })

  test('finds a book by slug, and nothing for an unknown slug', async ({ database }) => {
    const django = await getBookBySlug(database.db, 'django-framework')
    expect(django).toMatchObject({
      title: 'Django Framework',
      bestSeller: expect.any(Boolean),
      available: true,
    })
    expect(django?.topics.length).toBeGreaterThan(0)
    expect(await getBookBySlug(database.db, 'no-such-book')).toBeUndefined()
  })

  test('seeding again changes nothing, and keeps what the owner edited', async ({ database }) => {
    await database.db
      .update(books)
      .set({ title: 'Django Framework, 2nd edition' })
      .where(eq(books.slug, 'django-framework'))
    await seedCatalog(database.db)
    await seedCatalog(database.db)
    const all = await listBooks(database.db)
    expect(all).toHaveLength(seedBooks.length)
    expect(all.find((book) => book.slug === 'django-framework')?.title).toBe('Django Framework, 2nd edition')
    await database.db
      .update(books)
      .set({ title: 'Django Framework' })
      .where(eq(books.slug, 'django-framework'))
  })

  test('the database refuses impossible books', async ({ database }) => {
    const valid = { ...seedBooks[4]!, slug: 'constraint-check', featured: false, featuredPosition: null }
    const attempts = [
      [{ ...valid, priceCents: -1 }, 'books_price_cents_check'],
      [{ ...valid, rating: 6 }, 'books_rating_check'],
      [{ ...valid, slug: 'Not A Slug' }, 'books_slug_check'],
      [{ ...valid, currency: 'usd' }, 'books_currency_check'],
      [{ ...valid, featured: true, featuredPosition: null }, 'books_featured_position_check'],
      [{ ...valid, slug: 'django-framework' }, 'books_slug_unique'],
    ] as const
    for (const [attempt, constraint] of attempts) {
      // Drizzle wraps the database's error, which names the constraint the row broke.
      await expect(
        database.db.insert(books).values({ ...attempt, topics: [...attempt.topics] }),
      ).rejects.toMatchObject({ cause: { constraint } })
    }
  })
})
