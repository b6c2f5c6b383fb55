import { ESLint } from 'eslint'
import { describe, expect, test } from 'vitest'

// The lint rule that keeps the layers honest (eslint.config.js, docs/architecture.md), run on imports written
// into files of each layer: a wrong-way import fails `npm run lint`, however it is spelled.
const eslint = new ESLint({ cwd: process.cwd() })

async function layerErrors(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath })
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'boundaries/dependencies')
    .map((message) => message.message)
}

describe('the layers are enforced by lint', () => {
  test.each([
    [
      'a UI primitive importing a feature (by alias)',
      'app/components/ui/x.tsx',
      '#app/features/cart/use-cart.ts',
    ],
    [
      'a UI primitive importing a feature (relative)',
      'app/components/ui/x.tsx',
      '../../features/cart/use-cart.ts',
    ],
    [
      'infrastructure importing a feature',
      'app/server/x.server.ts',
      '#app/features/catalog/catalog.server.ts',
    ],
    ['a feature importing a route', 'app/features/catalog/x.server.ts', '#app/routes/home.tsx'],
    ['a feature importing a composition', 'app/features/catalog/x.tsx', '#app/compositions/book-grid.tsx'],
    ['the HTTP host importing a feature', 'server/x.ts', '#app/features/cart/cart.server.ts'],
    ['the HTTP host importing a route', 'server/x.ts', '../app/routes/home.tsx'],
    ['a script importing a test helper', 'scripts/x.ts', '#tests/db.ts'],
    ['a harness importing a test helper', 'harness/x.ts', '#tests/route-args.ts'],
  ])('%s fails', async (_, file, target) => {
    const errors = await layerErrors(
      file,
      `import * as target from '${target}'\nexport const used = target\n`,
    )
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/^The [a-z-]+ layer must not import the [a-z-]+ layer/)
  })

  test.each([
    [
      'a route importing a feature and a composition',
      'app/routes/x.tsx',
      ['#app/features/cart/use-cart.ts', '#app/compositions/book-grid.tsx'],
    ],
    [
      'a feature importing infrastructure and UI',
      'app/features/catalog/x.tsx',
      ['#app/server/db/schema/index.server.ts', '#app/components/ui/icons.tsx'],
    ],
    [
      'the HTTP host importing infrastructure and the services',
      'server/x.ts',
      ['#app/server/logger.server.ts', '#app/services.server.ts'],
    ],
    [
      'a script importing a harness and the URL map',
      'scripts/x.ts',
      ['#harness/store-process.ts', '#app/routes.ts'],
    ],
  ])('%s passes', async (_, file, targets) => {
    const source = targets
      .map((target, i) => `import * as t${i} from '${target}'\nexport const u${i} = t${i}\n`)
      .join('')
    expect(await layerErrors(file, source)).toEqual([])
  })

  test('the host imports infrastructure and the store’s entry only (folders and the files directly in app/)', async () => {
    const errors = await layerErrors(
      'server/wrong-way.ts',
      [
        "import { createStoreServices } from '#app/services.server.ts'",
        "import { prepareStore } from '#app/startup.server.ts'",
        "import { visitorKey } from '#app/visitor-key.server.ts'",
        "import { parseEnv } from '#app/server/env.server.ts'",
        "import { mayRecord } from '#app/features/analytics/record.server.ts'",
        "import { loader } from '#app/root.tsx'",
        "import routes from '#app/routes.ts'",
        'export const all = [createStoreServices, prepareStore, visitorKey, parseEnv, mayRecord, loader, routes]',
      ].join('\n'),
    )
    expect(errors).toEqual([
      'The host layer must not import the feature layer (docs/architecture.md).',
      'The host layer must not import the app-entry layer (docs/architecture.md).',
      'The host layer must not import the url-map layer (docs/architecture.md).',
    ])
  })
})
