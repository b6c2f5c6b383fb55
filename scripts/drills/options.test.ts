import { expect, test } from 'vitest'
import { readCommandLine, readDrillOptions } from './options.ts'

const fuzz = {
  name: 'fuzz',
  summary: 'Fuzzes every route.',
  options: {
    runs: { type: 'number', value: 'N', help: 'requests per route' },
    route: { type: 'string', value: 'PATTERN', help: 'only the routes whose file matches' },
    verbose: { type: 'boolean', help: 'print every request' },
  },
} as const

test('the shared options, then the drill’s own, typed; unset ones are undefined', () => {
  expect(readDrillOptions(fuzz, [])).toEqual({
    values: {
      quick: false,
      db: 'pglite',
      build: false,
      storage: 'folder',
      runs: undefined,
      route: undefined,
      verbose: undefined,
    },
  })
  const read = readDrillOptions(fuzz, [
    '--quick',
    '--db',
    'postgres',
    '--runs=50',
    '--route',
    'cart',
    '--verbose',
  ])
  expect(read).toEqual({
    values: {
      quick: true,
      db: 'postgres',
      build: false,
      storage: 'folder',
      runs: 50,
      route: 'cart',
      verbose: true,
    },
  })
})

test('DRILL_QUICK=1 and DRILL_DB stand for --quick and --db; --db wins over DRILL_DB', () => {
  const env = { DRILL_QUICK: '1', DRILL_DB: 'postgres' }
  expect(readDrillOptions(fuzz, [], env)).toMatchObject({ values: { quick: true, db: 'postgres' } })
  expect(readDrillOptions(fuzz, ['--db', 'pglite'], env)).toMatchObject({ values: { db: 'pglite' } })
})

test('an unknown option, a missing or bad value, or a database the drill does not run on: the usage, exit 2', () => {
  const usage =
    'Usage: npm run drill:fuzz -- [--quick] [--db pglite|postgres] [--build] [--runs N] [--route PATTERN] [--verbose] [--help]'
  for (const args of [['--fast'], ['--runs'], ['--runs', 'many'], ['--db', 'mysql'], ['extra']]) {
    const read = readDrillOptions(fuzz, args)
    expect(read).toMatchObject({ exit: 2 })
    expect((read as { message: string }).message.split('\n').at(-1)).toBe(usage)
  }
  const onPostgres = { name: 'pg-restart', summary: '…', databases: ['postgres'] } as const
  expect(readDrillOptions(onPostgres, [])).toMatchObject({ values: { db: 'postgres' } })
  expect(readDrillOptions(onPostgres, ['--db', 'pglite'])).toMatchObject({ exit: 2 })
  expect(readDrillOptions(onPostgres, [], { DRILL_DB: 'pglite' })).toMatchObject({ exit: 2 })
  const noDatabase = { name: 'cluster', summary: '…', databases: [], builds: false } as const
  expect(readDrillOptions(noDatabase, ['--db', 'postgres'])).toMatchObject({ exit: 2 })
  expect(readDrillOptions(noDatabase, ['--build'])).toMatchObject({ exit: 2 })
})

test('--storage folder|s3 for a drill that takes it: the folder by default, anything else the usage, exit 2', () => {
  const kill = { name: 'kill', summary: '…', storages: true } as const
  expect(readDrillOptions(kill, [])).toMatchObject({ values: { storage: 'folder' } })
  expect(readDrillOptions(kill, ['--storage', 's3', '--quick'])).toMatchObject({
    values: { storage: 's3', quick: true },
  })
  expect(readDrillOptions(kill, ['--storage=folder'])).toMatchObject({ values: { storage: 'folder' } })
  const usage =
    'Usage: npm run drill:kill -- [--quick] [--db pglite|postgres] [--build] [--storage folder|s3] [--help]'
  for (const args of [['--storage', 'gcs'], ['--storage'], ['--storage', 'S3']]) {
    const read = readDrillOptions(kill, args)
    expect(read).toMatchObject({ exit: 2 })
    expect((read as { message: string }).message.split('\n').at(-1)).toBe(usage)
  }
  // A drill that does not take it refuses it.
  expect(readDrillOptions(fuzz, ['--storage', 's3'])).toMatchObject({ exit: 2 })
})

test('--help: the summary, the usage and what each option does, exit 0', () => {
  const read = readDrillOptions(fuzz, ['--help', '--quick'])
  expect(read).toMatchObject({ exit: 0 })
  const message = (read as { message: string }).message
  expect(message.startsWith('Fuzzes every route.\n\nUsage: npm run drill:fuzz -- [--quick]')).toBe(true)
  expect(message).toMatch(/^ {2}--runs +requests per route$/m)
  expect(message).toMatch(/^ {2}--quick +a short run, for CI \(also DRILL_QUICK=1\)$/m)
})

test('a script’s own command line: its options and --help only', () => {
  const bench = {
    usage: 'npm run bench --',
    summary: 'Throughput and latency.',
    options: {
      db: { type: 'string', value: 'pglite|postgres', help: 'the database', choices: ['pglite', 'postgres'] },
      'cpu-share': { type: 'number', value: 'S', help: 'each instance’s share of a core' },
    },
  } as const
  expect(readCommandLine(bench, ['--cpu-share', '0.5'])).toEqual({
    values: { db: undefined, 'cpu-share': 0.5 },
  })
  expect(readCommandLine(bench, ['--db', 'mysql'])).toEqual({
    exit: 2,
    message:
      '--db: "mysql" is not one of pglite, postgres\nUsage: npm run bench -- [--db pglite|postgres] [--cpu-share S] [--help]',
  })
  expect(readCommandLine(bench, ['--quick'])).toMatchObject({ exit: 2 })
})
