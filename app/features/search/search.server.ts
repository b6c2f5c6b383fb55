/**
 * Book search: PostgreSQL full-text search (title, author, topics, description) for matching and ranking,
 * a prefix match on titles for what is being typed, and trigram similarity against the catalogue's own
 * words to correct a misspelt query. The indexes, the document function and the word list are in
 * drizzle/0002_search.sql.
 *
 * Every query is bounded whatever the catalogue's size: each way of matching collects at most a fixed number
 * of candidates straight from its index (no ordering), and only those are ranked. A broad query therefore
 * reports 'more than 100' rather than an exact count, and its first results are the best of a sample; a
 * specific query (the common case) sees every match ranked.
 */
import { asc, desc, sql, type SQL } from 'drizzle-orm'
import { alias, type AnyPgColumn } from 'drizzle-orm/pg-core'
import { asCard, cardColumns, type BookCard } from '#app/features/catalog/catalog.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import { SUGGESTION_LIMIT, type Suggestion } from './search-query.ts'

export const PAGE_SIZE = 20
/** Results beyond this many are not counted or shown: 'more than 100'. */
export const RESULT_CAP = 100
/** Each way of matching offers at most this many candidates for ranking. */
const CANDIDATES = RESULT_CAP + 1
/** Below this trigram similarity a dictionary word is no correction (djnago → django is 0.27). */
const MIN_CORRECTION_SIMILARITY = 0.25

export type SearchResults = {
  /** The query the results are for: the visitor's, or its correction when the visitor's found nothing. */
  query: string
  /** Set when nothing matched the visitor's query and these results are for a corrected spelling. */
  correctedFrom: string | null
  books: BookCard[]
  /** How many books match, up to RESULT_CAP; `more` when there are more than that. */
  total: number
  more: boolean
  page: number
  pageCount: number
}

type SearchableColumns = {
  id: AnyPgColumn
  title: AnyPgColumn
  author: AnyPgColumn
  topics: AnyPgColumn
  description: AnyPgColumn
}

const english = sql.raw(`'pg_catalog.english'::regconfig`)

/** Both written exactly as the indexes are, so that the planner uses them. */
const titleVector = (b: SearchableColumns) => sql`to_tsvector(${english}, ${b.title})`
const documentVector = (b: SearchableColumns) =>
  sql`books_search_document(${b.title}, ${b.author}, ${b.topics}, ${b.description})`

/**
 * Every word of the query (stemmed, stop words dropped). plainto_tsquery accepts any text, so operators a
 * visitor types (& | ! : * quotes) are just punctuation. Immutable with a constant argument: PostgreSQL
 * computes it once, when planning.
 */
const allWords = (q: string) => sql`plainto_tsquery(${english}, ${q})`

/**
 * The same with the last word as a prefix, for text still being typed ('django fram' finds 'Django
 * Framework'). plainto_tsquery's output always ends with a quoted lexeme when it has any; the check keeps
 * the cast safe regardless.
 */
const allWordsLastAsPrefix = (q: string) => sql`(case
  when ${allWords(q)}::text ~ '''$' then (${allWords(q)}::text || ':*')::tsquery
  else ${allWords(q)} end)`

/** LIKE pattern for titles starting with the query, its wildcards escaped. */
const titlePrefixPattern = (q: string) =>
  sql`replace(replace(replace(lower(${q}), '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'`
const titleStartsWith = (b: SearchableColumns, q: string) =>
  sql`lower(${b.title}) like ${titlePrefixPattern(q)}`
/** The order of the title prefix index: text_pattern_ops sorts by ~<~ (bytes), not by the collation's <. */
const titleOrder = (b: SearchableColumns) => sql`lower(${b.title}) using ~<~`

type MatchWay = {
  condition: (b: SearchableColumns) => SQL
  limit: number
  /** An order an index provides: the way then streams from that index in that order. */
  orderedBy?: (b: SearchableColumns) => SQL
}

/**
 * Each way of matching as a select of at most its `limit` ids with its tier (its position), joined with
 * UNION ALL. An unordered way runs as a MATERIALIZED CTE: planned for all its rows, so PostgreSQL uses the
 * index (with a LIMIT in view it would rather scan the table hoping to meet matches early, and computing a
 * document per book is slow), yet run lazily, so the LIMIT stops it early. An ordered way needs no such
 * fence: its index scan is both the fastest plan and a streaming one.
 */
function matchWays(ways: MatchWay[], extraCtes: SQL[] = []) {
  const hit = alias(books, 'hit')
  const from = sql`from ${books} as ${sql.identifier('hit')}`
  const name = (tier: number) => sql.identifier(`way${tier}`)
  const ctes: SQL[] = [...extraCtes]
  // Drafts and archived books are not in the store: found by no way.
  const where = (way: MatchWay) => sql`${way.condition(hit)} and ${hit.status} = 'published'`
  const found = ways.map((way, tier) => {
    const tierColumn = sql`${sql.raw(String(tier))} as tier`
    if (way.orderedBy) {
      return sql`(select ${hit.id}, ${tierColumn} ${from} where ${where(way)} order by ${way.orderedBy(hit)} limit ${way.limit})`
    }
    ctes.push(sql`${name(tier)} as materialized (select ${hit.id} ${from} where ${where(way)})`)
    return sql`(select id, ${tierColumn} from ${name(tier)} limit ${way.limit})`
  })
  return {
    with: ctes.length > 0 ? sql`with ${sql.join(ctes, sql`, `)}` : sql``,
    found: sql.join(found, sql` union all `),
  }
}

/** `matches` (id, tier): every book any way found, with the tier of the first way that found it. */
function allMatches(ways: MatchWay[]): SQL {
  const { with: ctes, found } = matchWays(ways)
  return sql`(${ctes} select id, min(tier) as tier from (${found}) as found group by id) as matches`
}

/**
 * `matches` (id, tier): the first `limit` books found, trying the ways in order. Later ways do not run
 * once earlier ones have found enough (the ways' conditions must exclude what earlier ways match, so that
 * a book is found once).
 */
function firstMatches(ways: MatchWay[], limit: number, extraCtes: SQL[] = []): SQL {
  const { with: ctes, found } = matchWays(ways, extraCtes)
  return sql`(${ctes} select id, tier from (${found}) as found limit ${limit}) as matches`
}

const matchTier = sql`matches.tier`

function isShort(q: string) {
  return Array.from(q).length <= 2
}

/**
 * The search results page: books matching every word of `q` (title, author, topics or description), or
 * whose title starts with `q`. Title matches first (titles starting with the query before titles containing
 * its words), then author, topic and description matches; title matches by full-text rank, then by title.
 * When nothing matches, the query's misspelt words are corrected from the catalogue's vocabulary and the
 * corrected query is searched instead. `q` must be normalised (normalizeQuery) and not empty.
 */
export async function searchBooks(db: Db, q: string, { page = 1 } = {}): Promise<SearchResults> {
  const found = await searchPage(db, q, page)
  if (found.total > 0 || found.page > 1) return { ...found, correctedFrom: null }
  const corrected = await correctSpelling(db, q)
  if (!corrected) return { ...found, correctedFrom: null }
  return { ...(await searchPage(db, corrected, 1)), correctedFrom: q }
}

/**
 * The search results page's matches as ids, best first: at most RESULT_CAP of them, `more` when there were
 * more (the same matches and order as searchBooks). The faceted results page filters, counts and sorts these
 * (docs/decisions/019). A query that matches nothing is corrected as in searchBooks.
 */
export async function searchMatchIds(
  db: Db,
  q: string,
): Promise<{ query: string; correctedFrom: string | null; ids: string[]; more: boolean }> {
  const found = await rankedIds(db, q)
  if (found.ids.length > 0) return { query: q, correctedFrom: null, ...found }
  const corrected = await correctSpelling(db, q)
  if (!corrected) return { query: q, correctedFrom: null, ...found }
  return { query: corrected, correctedFrom: q, ...(await rankedIds(db, corrected)) }
}

async function rankedIds(db: Db, q: string) {
  const { matches, order } = rankedMatches(q)
  const rows = await db
    .select({ id: books.id })
    .from(books)
    .innerJoin(matches, sql`matches.id = ${books.id}`)
    .orderBy(...order)
    .limit(RESULT_CAP + 1)
  return { ids: rows.slice(0, RESULT_CAP).map((row) => row.id), more: rows.length > RESULT_CAP }
}

function rankedMatches(q: string) {
  const words = allWords(q)
  const matches = allMatches([
    { condition: (b) => titleStartsWith(b, q), limit: CANDIDATES, orderedBy: titleOrder },
    { condition: (b) => sql`${titleVector(b)} @@ ${words}`, limit: CANDIDATES },
    { condition: (b) => sql`${documentVector(b)} @@ ${words}`, limit: CANDIDATES },
  ])
  // Only the candidates are ranked, with what is cheap to compute: the title and the author are short, the
  // topics a few words; a description costs as much as all three, so description matches go by title.
  const field = sql`case
    when ${matchTier} < 2 then 0
    when to_tsvector(${english}, ${books.author}) @@ ${words} then 1
    when to_tsvector(${english}, array_to_string(${books.topics}, ' ')) @@ ${words} then 2
    else 3 end`
  const titleRank = sql`case when ${matchTier} = 1 then ts_rank(${titleVector(books)}, ${words}) else 0 end`
  return { matches, order: [matchTier, field, desc(titleRank), asc(books.title), asc(books.id)] }
}

async function searchPage(db: Db, q: string, requestedPage: number) {
  const { matches, order } = rankedMatches(q)
  const lastPage = Math.ceil(RESULT_CAP / PAGE_SIZE)
  const page = Math.min(Math.max(1, Math.trunc(requestedPage)), lastPage)
  const rows = await db
    .select({ ...cardColumns, total: sql<number>`count(*) over ()`.mapWith(Number) })
    .from(books)
    .innerJoin(matches, sql`matches.id = ${books.id}`)
    .orderBy(...order)
    .limit(PAGE_SIZE)
    .offset((page - 1) * PAGE_SIZE)
  // Past the last page there are no rows to carry the count: start again from the first.
  if (rows.length === 0 && page > 1) return searchPage(db, q, 1)
  const total = rows[0]?.total ?? 0
  const shown = Math.min(total, RESULT_CAP)
  return {
    query: q,
    books: rows.map(({ total: _total, ...book }) => asCard(book)),
    total: shown,
    more: total > RESULT_CAP,
    page,
    pageCount: Math.max(1, Math.ceil(shown / PAGE_SIZE)),
  }
}

/**
 * Up to five books for what is being typed: titles starting with it first, then titles containing its
 * words (the last one as a prefix), then books whose author, topics or description do; alphabetical within
 * each. One or two letters only match the start of titles (anything broader matches most of a large
 * catalogue). A misspelling that suggests nothing is corrected as in searchBooks.
 */
export async function suggestBooks(db: Db, q: string): Promise<Suggestion[]> {
  const found = await suggestionsFor(db, q)
  if (found.length > 0 || isShort(q)) return found
  return correctedSuggestionsFor(db, q)
}

async function suggestionsFor(db: Db, q: string): Promise<Suggestion[]> {
  const words = allWordsLastAsPrefix(q)
  const startsWith = (b: SearchableColumns) => titleStartsWith(b, q)
  const inTitle = (b: SearchableColumns) => sql`${titleVector(b)} @@ ${words}`
  const matches = firstMatches(
    isShort(q)
      ? [{ condition: startsWith, limit: SUGGESTION_LIMIT, orderedBy: titleOrder }]
      : [
          { condition: startsWith, limit: SUGGESTION_LIMIT, orderedBy: titleOrder },
          { condition: (b) => sql`${inTitle(b)} and not ${startsWith(b)}`, limit: SUGGESTION_LIMIT },
          {
            condition: (b) =>
              sql`${documentVector(b)} @@ ${words} and not ${inTitle(b)} and not ${startsWith(b)}`,
            limit: SUGGESTION_LIMIT,
          },
        ],
    SUGGESTION_LIMIT,
  )
  return suggestionsIn(db, matches)
}

/**
 * Suggestions for `q` spelt as the catalogue spells it, in one statement (correcting, then matching: this
 * runs while someone types): the corrected words are a CTE the ways read. Nothing when no word changed.
 */
async function correctedSuggestionsFor(db: Db, q: string): Promise<Suggestion[]> {
  const corrected = sql`(select words from corrected)`
  const inTitle = (b: SearchableColumns) => sql`${titleVector(b)} @@ ${corrected}`
  const matches = firstMatches(
    [
      { condition: inTitle, limit: SUGGESTION_LIMIT },
      {
        condition: (b) => sql`${documentVector(b)} @@ ${corrected} and not ${inTitle(b)}`,
        limit: SUGGESTION_LIMIT,
      },
    ],
    SUGGESTION_LIMIT,
    [sql`corrected as materialized (select plainto_tsquery(${english}, ${correctedText(q)}) as words)`],
  )
  return suggestionsIn(db, matches)
}

function suggestionsIn(db: Db, matches: SQL): Promise<Suggestion[]> {
  return db
    .select({ slug: books.slug, title: books.title, author: books.author })
    .from(books)
    .innerJoin(matches, sql`matches.id = ${books.id}`)
    .orderBy(matchTier, asc(sql`lower(${books.title})`), asc(books.id))
}

/**
 * `q` with each word the catalogue does not contain replaced by the most similar word it does (trigram
 * similarity, nearest first from the search_words index), or NULL when no word changed. Words shorter than
 * three letters and words with digits are left alone: trigrams say little about them.
 */
const correctedText = (q: string) => sql`(
  select case when count(fix.word) > 0
    then string_agg(coalesce(fix.word, w.lexeme), ' ' order by w.positions[1]) end
  from unnest(to_tsvector('pg_catalog.simple'::regconfig, ${q})) as w
  left join lateral (
    select s.word from search_words s
    where char_length(w.lexeme) >= 3
      and w.lexeme !~ '[0-9]'
      and not exists (select 1 from search_words known where known.word = w.lexeme)
    order by s.word <-> w.lexeme
    limit 1
  ) as fix on similarity(fix.word, w.lexeme) >= ${MIN_CORRECTION_SIMILARITY})`

/** See correctedText: `q` spelt as the catalogue spells it, or null when it already is (or nothing is close). */
export async function correctSpelling(db: Db, q: string): Promise<string | null> {
  const [row] = await db
    .select({ corrected: sql<string | null>`${correctedText(q)}` })
    .from(sql`(values (1)) as input`)
  return row?.corrected ?? null
}
