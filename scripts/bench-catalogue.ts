/**
 * The generated catalogue the catalogue-scale benchmarks share (bench:search, bench:catalog): the seed's 7
 * books plus 100,000 generated ones in embedded PGlite under .tmp/bench-search, built once with the store's
 * own migrations (`--rebuild` builds it again). Generated books have titles, authors and descriptions from
 * word lists (rare subjects in about one title in a thousand), three topics each (a rare topic,
 * 'formal-methods', on 20 books), a level (one in ten none), prices from $1 to $99, a seed rating and for
 * about a third readers' ratings, PDF and EPUB files (most books both, some one), and sales skewed towards
 * few best-sellers. A catalogue built before the facets existed is given them on first open. The folder
 * takes about 1.2 GB (mostly write-ahead log from loading, which PGlite keeps up to max_wal_size).
 */
import fs from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { sql } from 'drizzle-orm'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { openDatabase, type DatabaseHandle } from '#app/server/db/database.server.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import { findProjectRoot } from '#app/server/project-root.server.ts'

export const BOOKS = 100_000
const BATCH = 5_000
export const dataDir = path.join(findProjectRoot(), '.tmp', 'bench-search')

// Word lists for the generated catalogue. Rare subjects appear in about one title in a thousand.
/** A comma-separated list; an empty item is an empty string. */
function list(text: string) {
  return text.split(',').map((word) => word.replace(/\s+/g, ' ').trim())
}

const prefixes = list(`
  Practical, Mastering, Learning, Introduction to, Advanced, Modern, Effective, Hands-On,
  The Art of, Professional, Essential, Pragmatic, Beginning, Applied, Fundamentals of,
  Programming, Building with, Designing, Understanding, Exploring
`)
const subjects = list(`
  Python, Rust, Go, JavaScript, TypeScript, React, Vue, Angular, Svelte, Node.js, Django, Flask,
  Rails, Kotlin, Swift, Java, Scala, Haskell, Elixir, Erlang, Clojure, C++, C#, Ruby, PHP, Perl,
  Lua, Julia, Zig, OCaml, Algorithms, Data Structures, Distributed Systems, Operating Systems,
  Compilers, Databases, PostgreSQL, SQL, Redis, Kafka, Kubernetes, Docker, Linux, Networking,
  Cryptography, Security, Machine Learning, Deep Learning, Statistics, Data Science,
  Computer Vision, Natural Language Processing, Cloud Computing, Microservices, Web Development,
  Game Development, Computer Graphics, Concurrency, Functional Programming, Software Testing,
  DevOps, Software Architecture, Design Patterns, Refactoring, Web APIs, GraphQL, WebAssembly,
  Blockchain, Embedded Systems, Robotics, Quantum Computing, Information Retrieval,
  Search Engines, Accessibility, Design Systems, CSS, HTML, Unix, Git, Observability,
  Performance Engineering, Parallel Computing, Numerical Methods, Linear Algebra,
  Discrete Mathematics, Automata Theory, Type Systems, Formal Methods, Category Theory,
  Data Engineering, Stream Processing, Mobile Development, Android, iOS, Serverless,
  Site Reliability, Computer Architecture, Information Theory, Reinforcement Learning, Big Data
`)
const rareSubjects = list(`
  Paxos, Voronoi Diagrams, Treaps, Fenwick Trees, Bloom Filters, CRDTs, Skip Lists,
  Suffix Automata, Raft Consensus, Tarjan Algorithms
`)
const suffixes = list(`
  , , , in Practice, for Beginners, Cookbook, Complete Guide, from Scratch, by Example, in Action,
  the Hard Way, Step by Step, for Professionals, Patterns, Essentials, Deep Dive, Handbook
`)
const firstNames = list(`
  Ada, Alan, Grace, Edsger, Barbara, Donald, Margaret, Ken, Dennis, Frances, John, Radia, Tim,
  Vint, Hedy, Linus, Guido, Bjarne, James, Anders, Yukihiro, Rich, Sophie, Leslie, Shafi, Silvio,
  Whitfield, Martin, Robert, Kent, Ward, Sandi, Avdi, Priya, Tobias, Marisol, Daniel, Hana,
  Lucía, Kenji, Amara, Chen, Olga, Mateo, Fatima, Noah, Ingrid, Ravi, Yara, Emeka
`)
const lastNames = list(`
  Lovelace, Turing, Hopper, Dijkstra, Liskov, Knuth, Hamilton, Thompson, Ritchie, Allen,
  McCarthy, Perlman, Berners-Lee, Cerf, Lamarr, Torvalds, Rossum, Stroustrup, Gosling, Hejlsberg,
  Matsumoto, Hickey, Wilson, Lamport, Goldwasser, Micali, Diffie, Fowler, Martin, Beck,
  Cunningham, Metz, Grimm, Raghunathan, Lindqvist, Okafor, Moreau, Ferreira, Arakawa, Nwosu, Wei,
  Petrova, García, Haddad, Jensen, Iyer, Mensah, Novak, Santos
`)
const adjectives = list(`
  practical, thorough, friendly, concise, hands-on, complete, modern, rigorous, gentle, visual,
  project-based, comprehensive
`)
const audiences = list(`
  beginners, working developers, students, data scientists, engineers, architects, teams,
  self-taught programmers, researchers, hobbyists
`)
const verbs = list(`
  build, design, test, deploy, debug, profile, model, secure, scale, monitor, optimise, refactor,
  document, automate, benchmark
`)
const nouns = list(`
  web services, command-line tools, data pipelines, user interfaces, parsers, interpreters,
  caches, queues, schedulers, storage engines, network protocols, recommendation systems,
  mobile apps, games, dashboards, compilers, search indexes, payment systems, chat servers,
  file systems
`)
const tags = list(`
  python, web, backend, frontend, data, machine-learning, security, cloud, databases, devops,
  testing, systems, networking, mobile, games, theory, math, javascript, rust, go, java,
  functional, architecture, performance, algorithms, distributed, graphics, ai
`)

/** A text[] literal built from parameters: ARRAY[$1, $2, …]. */
function textArray(words: string[]) {
  return sql`ARRAY[${sql.join(
    words.map((word) => sql`${word}`),
    sql`, `,
  )}]::text[]`
}

function pick(words: string[]) {
  return sql`(${textArray(words)})[1 + floor(random() * ${words.length})::int]`
}

async function generateCatalogue(database: DatabaseHandle) {
  const { db } = database
  await db.execute(sql`select setseed(0.42)`)
  const started = performance.now()
  for (let first = 1; first <= BOOKS; first += BATCH) {
    const last = Math.min(BOOKS, first + BATCH - 1)
    // One INSERT … SELECT per batch: PostgreSQL generates the rows itself.
    await db.execute(sql`
      insert into ${books} (slug, title, author, description, price_cents, currency, cover_path, cover_alt,
        rating, best_seller, available, file_size_bytes, featured, topics, created_at)
      select 'bench-book-' || g.i, g.title, g.author, g.description, g.price_cents, 'USD',
        '/covers/django-framework.svg', 'Cover of ' || g.title, g.rating, g.rating = 5, true,
        g.file_size_bytes, false, g.topics, now() - make_interval(secs => g.i)
      from (
        select i,
          concat_ws(' ', ${pick(prefixes)},
            case when random() < 0.001 then ${pick(rareSubjects)} else ${pick(subjects)} end,
            nullif(${pick(suffixes)}, '')) as title,
          ${pick(firstNames)} || ' ' || ${pick(lastNames)} as author,
          'A ' || ${pick(adjectives)} || ' guide to ' || ${pick(subjects)} || ' for ' || ${pick(audiences)}
            || '. You will ' || ${pick(verbs)} || ' ' || ${pick(nouns)} || ' with ' || ${pick(subjects)}
            || ', ' || ${pick(verbs)} || ' ' || ${pick(nouns)} || ' and ' || ${pick(verbs)} || ' '
            || ${pick(nouns)} || ', then ' || ${pick(verbs)} || ' everything you made for '
            || ${pick(audiences)} || '. Every chapter ends with exercises and a project.' as description,
          (100 + floor(random() * 9900))::int as price_cents,
          (1 + floor(random() * 5))::int as rating,
          (1048576 + floor(random() * 20971520))::int as file_size_bytes,
          array[${pick(tags)}, ${pick(tags)}, ${pick(tags)}] as topics
        from generate_series(${first}::int, ${last}::int) as i
      ) g`)
    process.stdout.write(`\rgenerated ${last.toLocaleString('en')} books`)
  }
  await db.execute(sql`analyze`)
  console.log(` in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

/**
 * What the faceted catalogue filters and sorts on (docs/decisions/019), for every generated book still without
 * it: a level, readers' ratings, sales, a rare topic and the sold files. Idempotent.
 */
async function generateFacets(database: DatabaseHandle) {
  const { db } = database
  const [missing] = await db
    .select({ count: sql<number>`count(*)`.mapWith(Number) })
    .from(books)
    .where(sql`${books.slug} like 'bench-book-%' and ${books.level} is null and ${books.salesCount} = 0`)
  if (!missing || missing.count < BOOKS / 2) return
  const started = performance.now()
  await db.execute(sql`select setseed(0.24)`)
  await db.execute(sql`
    update ${books} set
      level = case when random() < 0.1 then null
        else (array['beginner', 'intermediate', 'advanced'])[1 + floor(random() * 3)::int] end,
      rating_count = g.count,
      rating_sum = least(5 * g.count, greatest(g.count, round(g.count * (1 + random() * 4))::int)),
      sales_count = case when random() < 0.4 then 0 else floor(power(random(), 4) * 2000)::int end,
      topics = case when substring(slug from 12)::int % 5000 = 0 then topics || 'formal-methods'::text
        else topics end
    from (select id, case when random() < 0.35 then 1 + floor(random() * 200)::int else 0 end as count
          from ${books} where slug like 'bench-book-%') as g
    where ${books.id} = g.id`)
  // The sold files: most books both formats, some one of them (the storage keys name nothing real).
  await db.execute(sql`
    insert into book_files (book_id, format, storage_key, size_bytes, sha256, source_hash)
    select b.id, f.format, 'bench/' || b.slug || '.' || f.format, b.file_size_bytes, md5(b.slug), md5(b.slug)
    from ${books} b
    cross join (values ('pdf', 0.9), ('epub', 0.75)) as f(format, share)
    where b.slug like 'bench-book-%' and random() < f.share
    on conflict do nothing`)
  // The update left a dead version of every row and the search indexes grown: rewrite the table and them.
  await db.execute(sql`vacuum full analyze books`)
  await db.execute(sql`vacuum analyze`)
  console.log(`facets generated in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

/**
 * Files every generated book under named topics (tables `topics` and `book_topics`, migration `topics`) from the
 * slugs generation wrote into `books.topics`: a catalogue generated before topics were named things was filed
 * by the migration itself. Idempotent: only books without topics yet.
 */
async function fileTopics(database: DatabaseHandle) {
  const { db } = database
  const unfiled = sql`b.slug like 'bench-book-%' and cardinality(b.topics) > 0
    and not exists (select 1 from book_topics bt where bt.book_id = b.id)`
  const [missing] = (
    (await db.execute(sql`select count(*)::int as count from ${books} b where ${unfiled}`)) as {
      rows: { count: number }[]
    }
  ).rows
  if (!missing || missing.count === 0) return
  const started = performance.now()
  await db.execute(sql`
    insert into topics (slug, name)
    select distinct t, initcap(replace(t, '-', ' ')) from ${books} b, unnest(b.topics) as t where ${unfiled}
    on conflict do nothing`)
  // The tags are slugs already; the book_topics triggers then write the names back into books.topics.
  await db.execute(sql`
    insert into book_topics (book_id, topic_id, position)
    select book_id, topic_id, (row_number() over (partition by book_id order by first) - 1)::smallint
    from (
      select b.id as book_id, t.id as topic_id, min(u.n) as first
      from ${books} b
      cross join lateral unnest(b.topics) with ordinality as u(slug, n)
      join topics t on t.slug = u.slug
      where ${unfiled}
      group by b.id, t.id
    ) p`)
  await db.execute(sql`vacuum full analyze books`)
  await db.execute(sql`vacuum analyze`)
  console.log(`topics filed in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

/** The shared benchmark catalogue, built or completed as needed; close it when done. */
export async function openBenchCatalogue(): Promise<DatabaseHandle> {
  const rebuild = process.argv.includes('--rebuild') || !fs.existsSync(path.join(dataDir, 'PG_VERSION'))
  if (rebuild) fs.rmSync(dataDir, { recursive: true, force: true })
  fs.mkdirSync(dataDir, { recursive: true })
  const database = await openDatabase({ kind: 'pglite', dataDir })
  try {
    await database.migrate()
    await seedCatalog(database.db)
    const [{ count } = { count: 0 }] = await database.db
      .select({ count: sql<number>`count(*)`.mapWith(Number) })
      .from(books)
    if (count < BOOKS) {
      if (count > 7) throw new Error(`${dataDir} holds a partial catalogue: run with --rebuild`)
      await generateCatalogue(database)
    }
    await generateFacets(database)
    await fileTopics(database)
    console.log(`catalogue: ${dataDir}`)
    return database
  } catch (error) {
    await database.close()
    throw error
  }
}
