/**
 * Question-shaped training queries generated from a corpus's own graph (issue 18, item 6), in three shapes:
 *  - bridge (2 or 3 hops): from a seed entity along hop edges (hop-edges.ts) through passages it never
 *    names, "the R2 of the R1 of Seed"; the answer is the end entity;
 *  - comparison: two seeds that have an edge with the same relation (1 or 2 hops each side), "do A's R and
 *    B's R match?";
 *  - relation paraphrases: every question's wording is drawn from several templates (question-templates.ts).
 * The gold of a query is the set of passages its edges were read from, so training teaches the document
 * ranking the retriever is scored on. Deterministic by seed; the generator reads the graph and the passages
 * only: no benchmark question is an input.
 *
 * Shape mix (a priori, not looked up on dev): the text multi-hop benchmarks of the paper are built from
 * bridge/compositional and comparison questions of two to four hops, so bridge and comparison shapes get
 * equal shares and three hops is the smaller part of each (GENERATED_MIX).
 */
import type { DualGraph } from '../graph/types';
import type { GraphView } from '../query/graph-view';
import type { Rng } from '../../util/rng';
import { hopGraph, surfaceWords, type HopEdge, type HopGraph } from './hop-edges';
import { bridgeQuestion, comparisonQuestion } from './question-templates';
import { gnnQueryFor, QUERY_DEFAULTS, type QuerySettings } from './query-adapter';
import type { TrainExample } from './examples';
import type { Paraphrase } from './relation-paraphrase';

export type GeneratedKind = 'bridge-2' | 'bridge-3' | 'comparison-1' | 'comparison-2';

export const GENERATED_MIX: Record<GeneratedKind, number> = { 'bridge-2': 0.35, 'bridge-3': 0.15, 'comparison-1': 0.35, 'comparison-2': 0.15 };

export interface GeneratedQuery {
  id: string;
  kind: GeneratedKind;
  text: string;
  /** Entities the question names (its seeds). */
  seeds: number[];
  /** Entities it must not name: the answer and the bridges (a bridge question names its start only). */
  hidden: number[];
  /** Graph document indices: the passages the question's edges were read from. */
  goldDocs: number[];
  edges: HopEdge[];
}

/** Attempts per wanted query before a shape is given up (a small graph may have few long paths). */
const ATTEMPTS = 20;

/** With `paraphrase`, each hop's relation words may be reworded away from its passage's (relation-paraphrase.ts). */
export function generateQueries(
  g: DualGraph,
  passageText: (doc: number) => string | undefined,
  rng: Rng,
  count: number,
  paraphrase?: Paraphrase,
): GeneratedQuery[] {
  const hops = hopGraph(g);
  const heads = [...hops.byHead.keys()].sort((a, b) => a - b);
  if (!heads.length || count <= 0) return [];
  // Its own stream, forked only when used: without a paraphrase the queries are exactly the earlier ones.
  const pr = paraphrase && rng.fork('paraphrase');
  const words = (e: HopEdge) => {
    const w = surfaceWords(e.stems, passageText(e.doc));
    return paraphrase ? paraphrase(w, passageText(e.doc), pr!) : w;
  };
  const out: GeneratedQuery[] = [];
  const seen = new Set<string>();
  for (const kind of Object.keys(GENERATED_MIX) as GeneratedKind[]) {
    const want = Math.round(count * GENERATED_MIX[kind]);
    const r = rng.fork(kind);
    let made = 0;
    for (let attempt = 0; made < want && attempt < want * ATTEMPTS; attempt++) {
      const q = kind.startsWith('bridge') ? bridge(g, hops, heads, r, kind, words) : comparison(g, hops, heads, r, kind, words);
      const key = q && `${q.goldDocs.join(',')}|${q.seeds.join(',')}`;
      if (!q || seen.has(key!)) continue;
      seen.add(key!);
      out.push({ ...q, id: `gen-${kind}-${made++}` });
    }
  }
  return out;
}

/**
 * A walk of n hops from `start`, each hop read from a passage the walk (and `avoid`) has not used, no entity
 * twice; with `keys`, hop i must have relation key keys[i] (the other side of a comparison).
 */
function walk(hops: HopGraph, start: number, n: number, rng: Rng, avoid: ReadonlySet<number> = new Set(), keys?: string[]): HopEdge[] | undefined {
  const path: HopEdge[] = [];
  const docs = new Set(avoid);
  const visited = new Set([start]);
  let at = start;
  for (let i = 0; i < n; i++) {
    const next = (hops.byHead.get(at) ?? []).filter(
      (e) =>
        !docs.has(e.doc) &&
        !visited.has(e.tail) &&
        (!keys || e.key === keys[i]) &&
        (i === n - 1 || (hops.byHead.get(e.tail) ?? []).some((f) => f.doc !== e.doc)),
    );
    if (!next.length) return undefined;
    const e = rng.pick(next);
    path.push(e);
    docs.add(e.doc);
    visited.add(e.tail);
    at = e.tail;
  }
  return path;
}

type Words = (e: HopEdge) => string;

function bridge(g: DualGraph, hops: HopGraph, heads: number[], rng: Rng, kind: GeneratedKind, words: Words): Omit<GeneratedQuery, 'id'> | undefined {
  const seed = rng.pick(heads);
  const path = walk(hops, seed, kind === 'bridge-3' ? 3 : 2, rng);
  if (!path) return undefined;
  const text = bridgeQuestion(g.entityNames[seed], path.map(words), rng);
  return { kind, text, seeds: [seed], hidden: path.map((e) => e.tail), goldDocs: [...new Set(path.map((e) => e.doc))], edges: path };
}

/** Two seeds whose first hops share a relation key (and, for two hops, whose second hops do too). */
function comparison(g: DualGraph, hops: HopGraph, heads: number[], rng: Rng, kind: GeneratedKind, words: Words): Omit<GeneratedQuery, 'id'> | undefined {
  const n = kind === 'comparison-2' ? 2 : 1;
  const seedA = rng.pick(heads);
  const a = walk(hops, seedA, n, rng);
  if (!a) return undefined;
  const partners = (hops.byKey.get(a[0].key) ?? []).filter((e) => e.head !== seedA && !a.some((x) => x.doc === e.doc || x.tail === e.head));
  if (!partners.length) return undefined;
  const seedB = rng.pick(partners).head;
  const keys = a.map((e) => e.key);
  const b = walk(hops, seedB, n, rng, new Set(a.map((e) => e.doc)), keys);
  if (!b || b.some((e) => e.tail === seedA)) return undefined;
  const text = comparisonQuestion(g.entityNames[seedA], g.entityNames[seedB], a.map(words), rng);
  const edges = [...a, ...b];
  return { kind, text, seeds: [seedA, seedB], hidden: edges.map((e) => e.tail), goldDocs: [...new Set(edges.map((e) => e.doc))], edges };
}

/**
 * Training examples of generated queries, built as the retriever builds its queries (query-adapter.ts). A query
 * is dropped when linking finds no seed, or links an entity it must not name (an answer or bridge: the name slipped
 * into the relation words), since then the gold is one lookup away and teaches nothing about hops.
 */
export function generatedExamples(
  view: GraphView,
  queries: GeneratedQuery[],
  s: QuerySettings = QUERY_DEFAULTS,
): { examples: TrainExample[]; dropped: number } {
  const examples: TrainExample[] = [];
  let dropped = 0;
  for (const q of queries) {
    const query = gnnQueryFor(view, q.text, s);
    const hidden = new Set(q.hidden.filter((h) => !q.seeds.includes(h)));
    if (!query || query.seeds.some((s) => hidden.has(s))) {
      dropped++;
      continue;
    }
    examples.push({ id: q.id, query, targetDocs: Int32Array.from(q.goldDocs) });
  }
  return { examples, dropped };
}
