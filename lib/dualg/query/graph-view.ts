/**
 * The query-time view of a DualGraph: the name dictionary for linking, the
 * nearest-name index, adjacency in both directions (CSR), the mention edges of
 * each document, and entity idf. Built once per loaded graph; every query reads
 * it without allocating per-graph structures again.
 */
import { EntityNameIndex } from '../graph/align';
import { skipKey } from '../graph/extract-offline';
import { NameMatcher } from '../graph/name-matcher';
import { wordTokens } from '../graph/names';
import { REL_MENTIONS, type DualGraph } from '../graph/types';
import { PARTIAL_MIN_IDF_SHARE, PartialNames } from './partial-names';

export interface GraphView {
  g: DualGraph;
  matcher: NameMatcher;
  names: EntityNameIndex;
  /** Outgoing + incoming edges per entity (CSR): neighbour, triple index. */
  adjOffset: Int32Array;
  adjNode: Int32Array;
  adjTriple: Int32Array;
  /** Triple indices of the mention edges read from each document. */
  docMentions: number[][];
  /** Entity idf: log(1 + numDocs / documents the entity occurs in). */
  idf: Float32Array;
  /** Entities titling each document's neighbours: document -> title docs it mentions is read through docMentions. */
  titleDocsOf: number[][];
  /** Micro facts by the macro entities their anchors align to. */
  microByEntity: Map<number, number[]>;
  /** A document's stemmed words as a set (built on first use). */
  docStems(doc: number): Set<string>;
  /** Documents holding a stemmed word (inverted index, built on first use). */
  stemDocs(stem: string): readonly number[];
  /**
   * Documents whose title contains the entity's name without being titled by it ("History of Mississippi",
   * "List of Ohio area codes" for Ohio; built on first use).
   */
  containerDocs(entity: number): readonly number[];
  /** The stemmed words of the corpus that start with `prefix` (sorted vocabulary, built on first use). */
  stemsWithPrefix(prefix: string): readonly string[];
  /** Documents whose title has the name key as a proper leading or trailing span, unless too many do (partial-names.ts). */
  partialDocs(key: string): readonly number[];
}

/** Entities named inside each title (every word span that is a known name, not the title's own entity), inverted. */
function titleContainers(g: DualGraph): number[][] {
  const out: number[][] = g.entityNames.map(() => []);
  g.docs.forEach((d, doc) => {
    const toks = wordTokens(d.title);
    const found = new Set<number>();
    for (let i = 0; i < toks.length; i++) {
      let key = '';
      for (let j = i; j < toks.length; j++) {
        key = j === i ? toks[j].norm : `${key} ${toks[j].norm}`;
        if (j - i + 1 === toks.length || skipKey(key) || !toks.slice(i, j + 1).some((t) => t.capitalised)) continue;
        for (const e of g.aliases.get(key) ?? []) if (e !== d.titleEntity) found.add(e);
      }
    }
    for (const e of found) out[e].push(doc);
  });
  return out;
}

function csr(g: DualGraph): Pick<GraphView, 'adjOffset' | 'adjNode' | 'adjTriple'> {
  const n = g.entityNames.length;
  const deg = new Int32Array(n + 1);
  for (const t of g.triples) {
    deg[t.head + 1]++;
    deg[t.tail + 1]++;
  }
  for (let i = 0; i < n; i++) deg[i + 1] += deg[i];
  const fill = deg.slice(0, n);
  const adjNode = new Int32Array(deg[n]);
  const adjTriple = new Int32Array(deg[n]);
  g.triples.forEach((t, i) => {
    adjNode[fill[t.head]] = t.tail;
    adjTriple[fill[t.head]++] = i;
    adjNode[fill[t.tail]] = t.head;
    adjTriple[fill[t.tail]++] = i;
  });
  return { adjOffset: deg, adjNode, adjTriple };
}

export function graphView(g: DualGraph): GraphView {
  const matcher = new NameMatcher();
  for (const k of g.aliases.keys()) if (!skipKey(k)) matcher.add(k);
  const docMentions: number[][] = g.docs.map(() => []);
  g.triples.forEach((t, i) => {
    if (t.rel === REL_MENTIONS && t.doc >= 0) docMentions[t.doc].push(i);
  });
  const nd = Math.max(1, g.docs.length);
  const idf = new Float32Array(g.entityNames.length);
  g.entityDocs.forEach((docs, e) => (idf[e] = Math.log(1 + nd / Math.max(1, docs.length))));
  const titleDocsOf: number[][] = g.entityNames.map(() => []);
  g.docs.forEach((d, i) => d.titleEntity >= 0 && titleDocsOf[d.titleEntity].push(i));
  const microByEntity = new Map<number, number[]>();
  g.micro.forEach((f, i) => {
    for (const e of [f.uEntity, f.vEntity]) if (e >= 0) (microByEntity.get(e) ?? microByEntity.set(e, []).get(e)!).push(i);
  });
  const stemSets = new Map<number, Set<string>>();
  const docStems = (d: number) => stemSets.get(d) ?? stemSets.set(d, new Set(g.docs[d].stems)).get(d)!;
  let inverted: Map<string, number[]> | undefined;
  const stemDocs = (w: string) => {
    if (!inverted) {
      inverted = new Map();
      g.docs.forEach((d, i) => {
        for (const st of d.stems) (inverted!.get(st) ?? inverted!.set(st, []).get(st)!).push(i);
      });
    }
    return inverted.get(w) ?? [];
  };
  let vocabulary: string[] | undefined;
  const stemsWithPrefix = (prefix: string) => {
    if (!vocabulary) {
      stemDocs('');
      vocabulary = [...inverted!.keys()].sort();
    }
    let lo = 0;
    let hi = vocabulary.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (vocabulary[mid] < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: string[] = [];
    for (let i = lo; i < vocabulary.length && vocabulary[i].startsWith(prefix); i++) out.push(vocabulary[i]);
    return out;
  };
  let containers: number[][] | undefined;
  const containerDocs = (e: number) => (containers ??= titleContainers(g))[e] ?? [];
  const partial = new PartialNames(g, PARTIAL_MIN_IDF_SHARE);
  return {
    g,
    matcher,
    names: new EntityNameIndex(g),
    ...csr(g),
    docMentions,
    idf,
    titleDocsOf,
    microByEntity,
    docStems,
    stemDocs,
    containerDocs,
    stemsWithPrefix,
    partialDocs: (key) => partial.docs(key),
  };
}
