/**
 * The drills' command lines, read one way (Node's `util.parseArgs`): the options they share (`--quick`, `--db`,
 * `--build`, `--help`), each drill's own, and one usage message made from them. An unknown option or a missing or
 * bad value prints the usage and exits 2; `--help` prints it with what each option does and exits 0.
 */
import { parseArgs } from 'node:util'

export type DbKind = 'pglite' | 'postgres'

/** One of a drill's own options; `value` names its argument in the usage (`--runs N`). */
export type DrillOption =
  { type: 'boolean'; help: string } | { type: 'string' | 'number'; value: string; help: string }

export type DrillCommand<Own extends Record<string, DrillOption>> = {
  /** As in `npm run drill:<name>`. */
  name: string
  /** What the drill does, in a line or two (the file's comment says the rest). */
  summary: string
  /** The databases it runs on, the default first ([] : no `--db`). Default: PGlite and PostgreSQL. */
  databases?: readonly DbKind[]
  /** Whether it builds the store when `build/` is missing (and takes `--build` to build anyway). Default: yes. */
  builds?: boolean
  options?: Own
}

type OwnValues<Own extends Record<string, DrillOption>> = {
  [K in keyof Own]?: Own[K]['type'] extends 'boolean'
    ? boolean
    : Own[K]['type'] extends 'number'
      ? number
      : string
}

export type DrillOptions<Own extends Record<string, DrillOption>> = {
  /** `--quick` or DRILL_QUICK=1: a short run, for CI. */
  quick: boolean
  /** `--db` or DRILL_DB, else the drill's first database. */
  db: DbKind
  /** `--build`: build the store even when `build/` exists. */
  build: boolean
} & OwnValues<Own>

/** What the command line asks for, or the message and exit status to stop with (2: a mistake; 0: `--help`). */
export function readDrillOptions<const Own extends Record<string, DrillOption> = Record<never, DrillOption>>(
  command: DrillCommand<Own>,
  args: string[],
  env: Record<string, string | undefined> = {},
): { options: DrillOptions<Own> } | { exit: 0 | 2; message: string } {
  const databases = command.databases ?? (['pglite', 'postgres'] as const)
  const options: Record<string, DrillOption> = {
    quick: { type: 'boolean', help: 'a short run, for CI (also DRILL_QUICK=1)' },
    ...(databases.length > 0 && {
      db: {
        type: 'string',
        value: databases.join('|'),
        help: `the database the store runs on (default: DRILL_DB, else ${databases[0]})`,
      },
    }),
    ...(command.builds !== false && {
      build: { type: 'boolean', help: 'build the store first even when build/ exists' },
    }),
    ...command.options,
    help: { type: 'boolean', help: 'this message' },
  }
  const usage = () =>
    `Usage: npm run drill:${command.name} -- ` +
    Object.entries(options)
      .map(([name, option]) => (option.type === 'boolean' ? `[--${name}]` : `[--${name} ${option.value}]`))
      .join(' ')
  const mistake = (problem: string) => ({ exit: 2 as const, message: `${problem}\n${usage()}` })

  let values: Record<string, string | boolean | undefined>
  try {
    values = parseArgs({
      args,
      options: Object.fromEntries(
        Object.entries(options).map(([name, option]) => [
          name,
          { type: option.type === 'boolean' ? 'boolean' : 'string' },
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
    return { exit: 0, message: `${command.summary}\n\n${usage()}\n\n${lines.join('\n')}` }
  }

  const db = (values.db ?? env.DRILL_DB ?? databases[0] ?? 'pglite') as string
  if (databases.length > 0 && !(databases as readonly string[]).includes(db))
    return mistake(`--db: ${JSON.stringify(db)} is not one of ${databases.join(', ')}`)
  const parsed: Record<string, unknown> = {
    quick: values.quick === true || env.DRILL_QUICK === '1',
    db,
    build: values.build === true,
  }
  for (const [name, option] of Object.entries(command.options ?? {})) {
    const value = values[name]
    if (value === undefined || option.type !== 'number') {
      parsed[name] = value
      continue
    }
    const number = Number(value)
    if (value === '' || !Number.isFinite(number))
      return mistake(`--${name}: ${JSON.stringify(value)} is not a number`)
    parsed[name] = number
  }
  return { options: parsed as DrillOptions<Own> }
}

/** The drill's options from this process's command line; prints the usage and exits when it must. */
export function parseDrillOptions<const Own extends Record<string, DrillOption> = Record<never, DrillOption>>(
  command: DrillCommand<Own>,
): DrillOptions<Own> {
  const read = readDrillOptions(command, process.argv.slice(2), process.env)
  if ('options' in read) return read.options
  ;(read.exit === 0 ? console.log : console.error)(read.message)
  process.exit(read.exit)
}
