import { createRequire } from 'node:module'
import type * as XmlDom from '@xmldom/xmldom'

/**
 * Feeds read as Thorium reads them: Readium's r2-opds-js parses OPDS 1.2 (its XML mapper, then its own 1→2
 * converter) and OPDS 2.0 (its JSON model). It is CommonJS with global converters registered once here.
 */

const require = createRequire(import.meta.url)
const { DOMParser } = require('@xmldom/xmldom') as typeof XmlDom
const r2 = {
  ...(require('r2-opds-js/dist/es8-es2017/src/opds/init-globals') as {
    initGlobalConverters_OPDS(): void
    initGlobalConverters_GENERIC(): void
  }),
  ...(require('r2-opds-js/dist/es8-es2017/src/opds/opds1/opds') as { OPDS: new () => unknown }),
  ...(require('r2-opds-js/dist/es8-es2017/src/opds/opds2/opds2') as { OPDSFeed: new () => unknown }),
  ...(require('r2-opds-js/dist/es8-es2017/src/opds/converter') as {
    convertOpds1ToOpds2(feed: unknown): R2Feed
  }),
  ...(require('r2-utils-js/dist/es8-es2017/src/_utils/xml-js-mapper') as {
    XML: { deserialize(doc: unknown, type: unknown): R2Opds1 }
  }),
  ...(require('r2-lcp-js/dist/es8-es2017/src/serializable') as {
    TaJsonDeserialize(json: unknown, type: unknown): R2Feed
  }),
}
r2.initGlobalConverters_GENERIC()
r2.initGlobalConverters_OPDS()

export type R2Link = {
  Href: string
  TypeLink: string
  Rel?: string[]
  Width?: number
  Height?: number
  Properties?: { Price?: { Currency: string; Value: number } }
}
export type R2Publication = {
  Metadata: { Title: string; Identifier: string; Modified?: Date; Author?: { Name: string }[] }
  Links: R2Link[]
  Images: R2Link[]
}
export type R2Feed = {
  Metadata: { Title: string; NumberOfItems?: number }
  Links: R2Link[]
  Publications?: R2Publication[]
  Navigation?: R2Link[]
}
/** An OPDS 1.2 feed as r2-opds-js models it; `Entries` is missing when the feed has none. */
export type R2Opds1 = {
  Title: string
  Entries?: {
    Title: string
    Id: string
    Links: { Rel: string; Href: string; Type: string; OpdsPrice?: number; OpdsPriceCurrencyCode?: string }[]
  }[]
  Links: { Rel: string; Href: string; Type: string }[]
}

/** An OPDS 1.2 feed's XML as Readium reads it, and as its converter turns it into OPDS 2. */
export function readOpds1(xml: string): { feed: R2Opds1; converted: R2Feed } {
  const feed = r2.XML.deserialize(new DOMParser().parseFromString(xml, 'application/xml'), r2.OPDS)
  return { feed, converted: r2.convertOpds1ToOpds2(feed) }
}

/** An OPDS 2.0 feed's JSON as Readium reads it. */
export function readOpds2(json: unknown): R2Feed {
  return r2.TaJsonDeserialize(json, r2.OPDSFeed)
}
