import { ESLint } from 'eslint'
import { expect, test } from 'vitest'

/** The layer rule's complaints about `source` as if it were the file at `filePath` (eslint.config.js). */
async function layerErrors(filePath: string, source: string): Promise<string[]> {
  const [result] = await new ESLint().lintText(source, { filePath })
  return result!.messages
    .filter((message) => message.ruleId === 'boundaries/dependencies')
    .map((message) => message.message)
}

test('the host imports infrastructure and the store’s entry only: a wrong-way import fails the lint', async () => {
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
    'A host must not import a feature (the layers: docs/architecture.md).',
    'A host must not import a app-entry (the layers: docs/architecture.md).',
    'A host must not import a url-map (the layers: docs/architecture.md).',
  ])
})
