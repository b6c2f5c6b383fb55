/**
 * `npm run bench:search`: search latency on a catalogue of 100,000 generated books (plus the seed's 7) in
 * embedded PGlite. The catalogue is built once into .tmp/bench-search (`--rebuild` builds it again) with the
 * store's own migrations, then the store's own query functions (suggestBooks, searchBooks) are timed for
 * one-letter, two-letter, common-word, misspelt and rare-word queries. Prints p50/p99; asserts nothing.
 * Targets (issue 3): suggestions p99 ≤ 10 ms, results page p99 ≤ 50 ms. The folder takes about 1.2 GB
 * (mostly write-ahead log from loading, which PGlite keeps up to max_wal_size): delete it when done.
 */
import fs from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { sql } from 'drizzle-orm'
import { seedCatalog } from '#app/features/catalog/catalog.server.ts'
import { searchBooks, suggestBooks } from '#app/features/search/search.server.ts'
import { openDatabase, type DatabaseHandle } from '#app/server/db/database.server.ts'
import { books } from '#app/server/db/schema.server.ts'
import { findProjectRoot } from '#app/server/project-root.server.ts'

const BOOKS = 100_000
const BATCH = 5_000
const RUNS_PER_QUERY = 60
const dataDir = path.join(findProjectRoot(), '.tmp', 'bench-search')

const queries = {
  '1 letter': ['p', 'd', 'm', 'z'],
  '2 letters': ['py', 'go', 'da', 'co'],
  'common word': ['python', 'data', 'guide', 'systems', 'practical'],
  typo: ['pyhton', 'algoritms', 'djnago', 'kubernetse', 'databse'],
  'rare word': ['paxos', 'voronoi', 'treaps', 'kowalczyk', 'fenwick'],
} satisfies Record<string, string[]>

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

type Row = Record<string, string | number>

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN
}

async function time(fn: () => Promise<unknown>) {
  const start = performance.now()
  await fn()
  return performance.now() - start
}

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

const rebuild = process.argv.includes('--rebuild') || !fs.existsSync(path.join(dataDir, 'PG_VERSION'))
if (rebuild) fs.rmSync(dataDir, { recursive: true, force: true })
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
  console.log(`catalogue: ${dataDir}`)

  const rows: Row[] = []
  const { db } = database
  // Warm up: the first runs plan each query shape, read the index pages and let V8 compile the code.
  for (let round = 0; round < 3; round++) {
    for (const q of Object.values(queries).flat()) {
      await suggestBooks(db, q)
      await searchBooks(db, q)
    }
  }
  for (const [kind, list] of Object.entries(queries)) {
    const suggestTimes: number[] = []
    const searchTimes: number[] = []
    const found: string[] = []
    for (const q of list) {
      const results = await searchBooks(db, q)
      found.push(
        `${q}${results.correctedFrom ? `→${results.query}` : ''}: ${results.more ? `>${results.total}` : results.total}`,
      )
      for (let run = 0; run < RUNS_PER_QUERY; run++) {
        suggestTimes.push(await time(() => suggestBooks(db, q)))
        searchTimes.push(await time(() => searchBooks(db, q)))
      }
    }
    suggestTimes.sort((a, b) => a - b)
    searchTimes.sort((a, b) => a - b)
    rows.push({
      queries: kind,
      'suggest p50 ms': Number(percentile(suggestTimes, 50).toFixed(2)),
      'suggest p99 ms': Number(percentile(suggestTimes, 99).toFixed(2)),
      'results p50 ms': Number(percentile(searchTimes, 50).toFixed(2)),
      'results p99 ms': Number(percentile(searchTimes, 99).toFixed(2)),
      'results found': found.join(', '),
    })
  }
  console.table(rows)
  const worst = (key: string) => Math.max(...rows.map((row) => Number(row[key])))
  console.log(
    `worst p99: suggestions ${worst('suggest p99 ms')} ms (target ≤ 10), results page ${worst('results p99 ms')} ms (target ≤ 50)`,
  )
} finally {
  await database.close()
}
