import fs from 'node:fs'
import { createRequire } from 'node:module'
import jsonld from 'jsonld'

/**
 * Checks JSON-LD documents against the schema.org vocabulary, as a parser reads them rather than as strings:
 * each document is expanded by the `jsonld` processor (in safe mode, so that a term it cannot map is an
 * error, not silently dropped), then every node's `@type` must be a schema.org class and every property a
 * schema.org property whose domain includes that class or one of its superclasses. The vocabulary is the
 * release @vocabulary/schema ships as N-Quads; nothing is fetched.
 */

const SCHEMA = 'http://schema.org/'
const RDF_PROPERTY = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#Property'
const RDFS_CLASS = 'http://www.w3.org/2000/01/rdf-schema#Class'
const SUBCLASS_OF = 'http://www.w3.org/2000/01/rdf-schema#subClassOf'
const DOMAIN_INCLUDES = 'http://schema.org/domainIncludes'

type Vocabulary = {
  classes: Set<string>
  superclasses: Map<string, Set<string>>
  domains: Map<string, Set<string>>
}

let vocabulary: Promise<Vocabulary> | undefined

/** schema.org, read once per test file from its N-Quads by the same JSON-LD processor. */
export function loadSchemaOrg(): Promise<Vocabulary> {
  vocabulary ??= (async () => {
    const file = createRequire(import.meta.url).resolve('@vocabulary/schema/schema.nq')
    const nodes = (await jsonld.fromRDF(fs.readFileSync(file, 'utf8'), {
      format: 'application/n-quads',
    })) as Array<Record<string, unknown>>
    const ids = (value: unknown) =>
      Array.isArray(value)
        ? value.flatMap((item) =>
            item && typeof item === 'object' && '@id' in item ? [String(item['@id'])] : [],
          )
        : []
    const classes = new Set<string>()
    const parents = new Map<string, string[]>()
    const domains = new Map<string, Set<string>>()
    // fromRDF puts the default graph's nodes at the top and a named graph's under its node's @graph.
    const all = nodes.flatMap((node) =>
      Array.isArray(node['@graph']) ? (node['@graph'] as typeof nodes) : [node],
    )
    for (const node of all) {
      const id = String(node['@id'])
      const types = (node['@type'] as string[] | undefined) ?? []
      if (types.includes(RDFS_CLASS)) classes.add(id)
      if (types.includes(RDF_PROPERTY)) domains.set(id, new Set(ids(node[DOMAIN_INCLUDES])))
      const supers = ids(node[SUBCLASS_OF])
      if (supers.length > 0) parents.set(id, supers)
    }
    // Each class with all its ancestors (schema.org's hierarchy is a DAG: DataType subclasses, multiple parents).
    const superclasses = new Map<string, Set<string>>()
    const ancestors = (id: string): Set<string> => {
      const known = superclasses.get(id)
      if (known) return known
      const found = new Set<string>([id])
      superclasses.set(id, found)
      for (const parent of parents.get(id) ?? [])
        for (const ancestor of ancestors(parent)) found.add(ancestor)
      return found
    }
    for (const id of classes) ancestors(id)
    return { classes, superclasses, domains }
  })()
  return vocabulary
}

/**
 * The schema.org context a page names, served from here: its `@vocab` maps every term into the vocabulary
 * (the published context does the same, and adds value coercions that do not change which terms are used).
 */
const documentLoader = async (url: string) => {
  if (/^https?:\/\/schema\.org\/?$/.test(url))
    return { documentUrl: url, document: { '@context': { '@vocab': SCHEMA } }, contextUrl: undefined }
  throw new Error(`the test would have fetched ${url}: only schema.org's context is known`)
}

/** Every problem found in the documents (an empty list: all valid schema.org). */
export async function schemaOrgProblems(documents: readonly unknown[]): Promise<string[]> {
  const vocab = await loadSchemaOrg()
  const problems: string[] = []
  for (const document of documents) {
    if (!document || typeof document !== 'object' || !('@context' in document)) {
      problems.push(`a document without @context: ${JSON.stringify(document).slice(0, 80)}`)
      continue
    }
    let expanded: unknown[]
    try {
      expanded = await jsonld.expand(
        document as jsonld.JsonLdDocument,
        {
          documentLoader: documentLoader as never,
          safe: true,
        } as jsonld.Options.Expand,
      )
    } catch (error) {
      problems.push(`not valid JSON-LD: ${error instanceof Error ? error.message : String(error)}`)
      continue
    }
    for (const node of expanded) checkNode(node, vocab, problems, '$')
  }
  return problems
}

function checkNode(node: unknown, vocab: Vocabulary, problems: string[], where: string) {
  if (!node || typeof node !== 'object' || '@value' in node) return
  if ('@list' in node) {
    for (const [index, item] of (node['@list'] as unknown[]).entries())
      checkNode(item, vocab, problems, `${where}[${index}]`)
    return
  }
  const record = node as Record<string, unknown>
  const types = (record['@type'] as string[] | undefined) ?? []
  if (types.length === 0) problems.push(`${where}: a node without @type`)
  const unknown = types.filter((type) => !vocab.classes.has(type))
  for (const type of unknown) problems.push(`${where}: ${type} is not a schema.org type`)
  const lineage = new Set(types.flatMap((type) => [...(vocab.superclasses.get(type) ?? [])]))
  for (const [key, values] of Object.entries(record)) {
    if (key.startsWith('@')) continue
    // schema.org Actions annotate a property's input or output as `<property>-input` / `<property>-output`.
    const property = key.replace(/-(input|output)$/, '')
    const domain = vocab.domains.get(property)
    const name = key.startsWith(SCHEMA) ? key.slice(SCHEMA.length) : key
    if (!domain) problems.push(`${where}: ${name} is not a schema.org property`)
    else if (unknown.length === 0 && ![...domain].some((type) => lineage.has(type)))
      problems.push(
        `${where}: ${name} does not apply to ${types.map((type) => type.replace(SCHEMA, '')).join(', ')}`,
      )
    for (const [index, value] of (values as unknown[]).entries())
      checkNode(value, vocab, problems, `${where}.${name}[${index}]`)
  }
}
