/**
 * A three-passage world (a company, a state, a bird) shared by the DualG query tests that need a tiny
 * graph with one linkable chain (Acme Corp -> Arizona) and one passage the chain never reaches (Road Runner);
 * and a report's revenue table of Acme Corp and Globex, the micro graph's facts in the graph and query tests.
 */
import type { Fragment } from '../../lib/corpus/types';
import type { GraphSource } from '../../lib/dualg/graph/build';
import type { KnowledgeBase } from '../../lib/pipeline/knowledge-base';

const text = (id: string, docId: string, t: string): Fragment => ({ id, docId, kind: 'text', text: t, section: [], ordinal: 0, attached: [] });

export const ACME_FRAGMENTS: readonly Fragment[] = [
  text('acme#0', 'acme', 'Acme Corp is a company founded by Wile Coyote in Arizona.'),
  text('arizona#0', 'arizona', 'Arizona is a state of the United States.'),
  text('road#0', 'road', 'Road Runner is a bird that lives in the desert.'),
];

/** The revenue table of report `r` as fragment r#<ordinal> (rows Acme Corp 12, Globex 7). */
export function acmeRevenueTable(ordinal: number, revenueHeader = 'Revenue'): Fragment {
  return {
    id: `r#${ordinal}`,
    docId: 'r',
    kind: 'table',
    text: 'Revenue table',
    section: [],
    ordinal,
    attached: [],
    table: {
      header: ['Company', revenueHeader],
      rows: [
        ['Acme Corp', '12'],
        ['Globex', '7'],
      ],
    },
  };
}

/** The graph source of the three passages; `id` and `fingerprint` keep each test's graph apart. */
export function acmeSource(id: string, fingerprint: string): GraphSource {
  return {
    id,
    fingerprint,
    documents: () => [
      { id: 'acme', title: 'Acme Corp' },
      { id: 'arizona', title: 'Arizona' },
      { id: 'road', title: 'Road Runner' },
    ],
    fragmentsOf: (d) => ACME_FRAGMENTS.filter((f) => f.docId === d),
  };
}

/** A knowledge base whose hybrid search finds nothing: only the graph can rank. */
export const emptyAcmeKb = {
  async search(query: string) {
    return { query, retriever: 'hybrid', hits: [], docs: [], timings: { totalMs: 0 } };
  },
  fragment: (id: string) => ACME_FRAGMENTS.find((f) => f.id === id),
} as unknown as KnowledgeBase;
