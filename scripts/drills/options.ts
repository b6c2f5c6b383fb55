/**
 * The command lines of the drills (and of the benchmarks that take options), read one way (Node's
 * `util.parseArgs`): the options drills share (`--quick`, `--db`, `--build`), each script's own, `--help`, and one
 * usage message made from them. An unknown option or a missing or bad value prints the usage and exits 2;
 * `--help` prints it with what each option does and exits 0.
 */
import { parseArgs } from 'node:util'

export type DbKind = 'pglite' | 'postgres'
/** Where the store keeps its files: its folder (DATA_DIR/files) or an S3-compatible bucket (issue 32). */
export type StorageKind = 'folder' | 's3'
export const STORAGE_KINDS = ['folder', 's3'] as const satisfies readonly StorageKind[]

/**
 * One option; `value` names its argument in the usage (`--runs N`). A number is checked to be one, a string to be
 * one of its `choices` when it has some.
 */
export type ScriptOption =
  | { type: 'boolean'; help: string }
  | { type: 'string'; value: string; help: string; choices?: readonly string[] }
  | { type: 'number'; value: string; help: string }

export type ScriptCommand<Own extends Record<string, ScriptOption>> = {
  /** How it is run, before its options: `npm run bench --`. */
  usage: string
  /** What it does, in a line or two (the file's comment says the rest). */
  summary: string
  options: Own
}

type Values<Own extends Record<string, ScriptOption>> = {
  [K in keyof Own]?: Own[K]['type'] extends 'boolean'
    ? boolean
    : Own[K]['type'] extends 'number'
      ? number
      : string
}

/** The values, or the message and exit status to stop with (2: a mistake; 0: `--help`). */
type Read<T> = { values: T } | { exit: 0 | 2; message: string }

export function readCommandLine<const Own extends Record<string, ScriptOption>>(
  command: ScriptCommand<Own>,
  args: string[],
): Read<Values<Own>> {
  const options: Record<string, ScriptOption> = {
    ...command.options,
    help: { type: 'boolean', help: 'this message' },
  }
  const usage =
    `Usage: ${command.usage} ` +
    Object.entries(options)
      .map(([name, option]) => (option.type === 'boolean' ? `[--${name}]` : `[--${name} ${option.value}]`))
      .join(' ')
  const mistake = (problem: string) => ({ exit: 2 as const, message: `${problem}\n${usage}` })

  let values: Record<string, string | boolean | undefined>
  try {
    values = parseArgs({
      args,
      options: Object.fromEntries(
        Object.entries(options).map(([name, option]) => [
          name,
          { type: option.type === 'boolean' ? ('boolean' as const) : ('string' as const) },
        ]),
      ),
      strict: true,
      allowPositionals: false,
    }).values
  } catch (error) {
    return mistake((error as Error).message)
  }
  if (values.help) {
    const width = Math.max(...Object.keys(options).map((name) => name.length)) + 2
    const lines = Object.entries(options).map(([name, option]) => `  --${name.padEnd(width)}${option.help}`)
    return { exit: 0, message: `${command.summary}\n\n${usage}\n\n${lines.join('\n')}` }
  }
  const parsed: Record<string, unknown> = {}
  for (const [name, option] of Object.entries(command.options)) {
    const value = values[name]
    if (typeof value === 'string' && option.type === 'number') {
      const number = Number(value)
      if (value.trim() === '' || !Number.isFinite(number))
        return mistake(`--${name}: ${JSON.stringify(value)} is not a number`)
      parsed[name] = number
    } else if (typeof value === 'string' && option.type === 'string' && option.choices) {
      if (!option.choices.includes(value))
        return mistake(`--${name}: ${JSON.stringify(value)} is not one of ${option.choices.join(', ')}`)
      parsed[name] = value
    } else parsed[name] = value
  }
  return { values: parsed as Values<Own> }
}

/** `readCommandLine` on this process's arguments; prints the usage and exits when it must. */
export function parseCommandLine<const Own extends Record<string, ScriptOption>>(
  command: ScriptCommand<Own>,
): Values<Own> {
  return orExit(readCommandLine(command, process.argv.slice(2)))
}

export type DrillCommand<Own extends Record<string, ScriptOption>> = {
  /** As in `npm run drill:<name>`. */
  name: string
  summary: string
  /** The databases it runs on, the default first ([]: no `--db`). Default: PGlite and PostgreSQL. */
  databases?: readonly DbKind[]
  /** Whether it builds the store when `build/` is missing (and takes `--build` to build anyway). Default: yes. */
  builds?: boolean
  /** Whether it takes `--storage folder|s3`. Default: no (the store on its folder). */
  storages?: boolean
  options?: Own
}

export type DrillOptions<Own extends Record<string, ScriptOption>> = {
  /** `--quick` or DRILL_QUICK=1: a short run, for CI. */
  quick: boolean
  /** `--db`, else DRILL_DB, else the drill's first database. */
  db: DbKind
  /** `--build`: build the store even when `build/` exists. */
  build: boolean
  /** `--storage`, for a drill that takes it: where the store keeps its files (default: its folder). */
  storage: StorageKind
} & Values<Own>

/** A drill's command line: the options drills share, then its own. */
export function readDrillOptions<
  const Own extends Record<string, ScriptOption> = Record<never, ScriptOption>,
>(
  command: DrillCommand<Own>,
  args: string[],
  env: Record<string, string | undefined> = {},
): Read<DrillOptions<Own>> {
  const databases = command.databases ?? (['pglite', 'postgres'] as const)
  const shared: Record<string, ScriptOption> = {
    quick: { type: 'boolean', help: 'a short run, for CI (also DRILL_QUICK=1)' },
  }
  if (databases.length > 0)
    shared.db = {
      type: 'string',
      value: databases.join('|'),
      choices: databases,
      help: `the database the store runs on (default: DRILL_DB, else ${databases[0]})`,
    }
  if (command.builds !== false)
    shared.build = { type: 'boolean', help: 'build the store first even when build/ exists' }
  if (command.storages)
    shared.storage = {
      type: 'string',
      value: STORAGE_KINDS.join('|'),
      choices: STORAGE_KINDS,
      help: 'where the store keeps its files: its folder (default) or an S3 bucket (s3rver on 127.0.0.1)',
    }
  const read = readCommandLine(
    {
      usage: `npm run drill:${command.name} --`,
      summary: command.summary,
      options: { ...shared, ...command.options },
    },
    args,
  )
  if (!('values' in read)) return read
  const given = read.values as Record<string, unknown>
  const db = (given.db ?? env.DRILL_DB ?? databases[0] ?? 'pglite') as DbKind
  if (databases.length > 0 && !databases.includes(db))
    return { exit: 2, message: `DRILL_DB: ${JSON.stringify(db)} is not one of ${databases.join(', ')}` }
  const values = {
    ...given,
    quick: given.quick === true || env.DRILL_QUICK === '1',
    db,
    build: given.build === true,
    storage: (given.storage ?? 'folder') as StorageKind,
  }
  return { values: values as DrillOptions<Own> }
}

/** The drill's options from this process's command line and environment; prints the usage and exits when it must. */
export function parseDrillOptions<
  const Own extends Record<string, ScriptOption> = Record<never, ScriptOption>,
>(command: DrillCommand<Own>): DrillOptions<Own> {
  return orExit(readDrillOptions(command, process.argv.slice(2), process.env))
}

function orExit<T>(read: Read<T>): T {
  if ('values' in read) return read.values
  if (read.exit === 0) console.log(read.message)
  else console.error(read.message)
  process.exit(read.exit)
}
