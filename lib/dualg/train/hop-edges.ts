/**
 * The hops a generated training question may take (generated-queries.ts): macro triples read from a passage
 * whose head is that passage's title entity, with the words that relate head and tail (an extracted
 * relation phrase, or the lead words before the tail's name in a mention edge). Only these edges are used
 * because a question "the R of X" is answered by X's own passage, where X's relations are stated; the
 * passage the edge was read from is the gold of that hop.
 */
import { BUILTIN_RELATIONS, REL_MENTIONS, type DualGraph } from '../graph/types';
import { stem, tokens } from '../../util/text-rules';

/** Relation words kept per hop (a priori: a relation is named in one or two words, "directed by", "born in"). */
const RELATION_WORDS = 2;

export interface HopEdge {
  head: number;
  tail: number;
  /** The graph document the triple was read from. */
  doc: number;
  /** Stemmed relation words (as the graph keeps them). */
  stems: string;
  /** Grouping key of the relation (its last stem: "film direct" and "direct" are both "direct"). */
  key: string;
}

/** Hop edges grouped by head entity, deduplicated on (head, tail, doc). */
export interface HopGraph {
  byHead: Map<number, HopEdge[]>;
  /** Hop edges by relation key (comparison partners). */
  byKey: Map<string, HopEdge[]>;
  edges: HopEdge[];
}

export function hopGraph(g: DualGraph): HopGraph {
  const seen = new Set<string>();
  const edges: HopEdge[] = [];
  for (const t of g.triples) {
    if (t.head === t.tail || g.docs[t.doc]?.titleEntity !== t.head) continue;
    // Built-in kinds other than mentions (co-occurs, equivalent, part-of) carry no relation words.
    if (t.rel !== REL_MENTIONS && t.rel < BUILTIN_RELATIONS.length) continue;
    const stems = (t.rel === REL_MENTIONS ? (t.lead ?? '') : g.relations[t.rel]).trim();
    // The last two words: the ones right before the tail's name say how it relates; earlier ones belong to other clauses.
    const words = stems
      .split(/\s+/)
      .filter((w) => w.length > 1 && !/^\d+$/.test(w))
      .slice(-RELATION_WORDS);
    if (!words.length) continue;
    const id = `${t.head}/${t.tail}/${t.doc}`;
    if (seen.has(id)) continue;
    seen.add(id);
    edges.push({ head: t.head, tail: t.tail, doc: t.doc, stems: words.join(' '), key: words[words.length - 1] });
  }
  return { byHead: groupBy(edges, (e) => e.head), byKey: groupBy(edges, (e) => e.key), edges };
}

function groupBy<K>(edges: HopEdge[], key: (e: HopEdge) => K): Map<K, HopEdge[]> {
  const out = new Map<K, HopEdge[]>();
  for (const e of edges) {
    const list = out.get(key(e));
    if (list) list.push(e);
    else out.set(key(e), [e]);
  }
  return out;
}

/**
 * The relation words of an edge in the passage's own surface form ("direct" -> "directed"): the first word of
 * the passage whose stem is the graph's stem, else the stem itself. A question is then written in words a
 * reader (and the query encoder's word vectors) know, not in stems.
 */
export function surfaceWords(stems: string, passage: string | undefined): string {
  const byStem = new Map<string, string>();
  for (const w of tokens(passage ?? '')) {
    const s = stem(w);
    if (!byStem.has(s)) byStem.set(s, w);
  }
  return stems
    .split(/\s+/)
    .map((s) => byStem.get(s) ?? s)
    .join(' ');
}
