/** Where the OPDS catalogue lives and its media types: shared by the feeds and the home page that advertises them. */

export const OPDS1_ROOT = '/opds'
export const OPDS2_ROOT = '/opds/v2'
export const atomNavigation = 'application/atom+xml;profile=opds-catalog;kind=navigation'
export const atomAcquisition = 'application/atom+xml;profile=opds-catalog;kind=acquisition'
export const opds2Type = 'application/opds+json'
export const openSearchType = 'application/opensearchdescription+xml'

/** The home page's `<link>`s by which reading apps and browsers discover the catalogue and its search. */
export const catalogueLinks = [
  { rel: 'alternate', type: atomNavigation, href: OPDS1_ROOT, title: 'CodeBook catalogue (OPDS 1.2)' },
  { rel: 'alternate', type: opds2Type, href: OPDS2_ROOT, title: 'CodeBook catalogue (OPDS 2.0)' },
  { rel: 'search', type: openSearchType, href: `${OPDS1_ROOT}/opensearch.xml`, title: 'CodeBook' },
]
