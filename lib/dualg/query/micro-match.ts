/**
 * Micro-graph matching (spec "Graph-level matching" and "Node-level boosting"):
 * the query pattern's condition triples (h, r, t; "?x" = wildcard) are matched
 * against micro facts. For each named node and each relation the top-K (K=3)
 * candidates come from a name index; a branch-and-bound search assigns one fact
 * per condition, a shared variable binding the same micro node everywhere, with
 * cost = sum of (1 - similarity) of nodes and relation, pruned once it exceeds
 * the K-th best complete cost, and hard semantic gating (a candidate below
 * GATE is never used). s_graph(d) = exp(-cost) of the best subgraph touching d;
 * node-level boosting s_node(d) = best similarity of a query entity to a micro
 * node of d (for a fragment: that similarity over the number of d's fragments
 * holding the node). Matched facts project to macro seeds through the alignment.
 */
import { nameSimilarity } from '../graph/equivalence';
import { nameKey } from '../graph/names';
import type { MicroFact } from '../graph/types';

export const TOP_K = 3;
export const GATE = 0.5;

export type PatternTriple = [string, string, string];

/** The top-K gated micro-node candidates of a query name (default: MicroIndex.candidates, the trigram stand-in; micro-dense.ts: dense). */
export type CandidateLookup = (name: string) => { node: number; sim: number }[];

export interface MicroMatchResult {
  /** Document index -> max(s_graph, s_node). */
  sMicro: Map<number, number>;
  /** Fragment id (table / image holding the fact) -> the same score, for ranking within one document. */
  sFragment: Map<string, number>;
  /** Macro entities reached by matched facts (S_ext), with the match score. */
  seeds: Map<number, number>;
  /** Facts of the best subgraphs, best first. */
  matched: MicroFact[][];
}

/** Micro nodes (distinct anchor names) and the facts they take part in. */
export class MicroIndex {
  readonly nodes: string[] = [];
  private readonly byKey = new Map<string, number>();
  private readonly byWord = new Map<string, number[]>();
  readonly factsOf: number[][] = [];

  constructor(readonly facts: MicroFact[]) {
    facts.forEach((f, i) => {
      for (const name of [f.u, f.v]) this.factsOf[this.node(name)].push(i);
    });
  }

  private node(name: string): number {
    const key = nameKey(name) || name.toLowerCase();
    let id = this.byKey.get(key);
    if (id === undefined) {
      id = this.nodes.length;
      this.nodes.push(key);
      this.byKey.set(key, id);
      this.factsOf.push([]);
      for (const w of new Set(key.split(' '))) (this.byWord.get(w) ?? this.byWord.set(w, []).get(w)!).push(id);
    }
    return id;
  }

  /** Top-K micro nodes for a query name, gated. */
  candidates(name: string, k = TOP_K): { node: number; sim: number }[] {
    const key = nameKey(name);
    const seen = new Set<number>();
    const out: { node: number; sim: number }[] = [];
    for (const w of new Set(key.split(' '))) {
      for (const id of this.byWord.get(w) ?? []) {
        if (seen.has(id)) continue;
        seen.add(id);
        const sim = id === this.byKey.get(key) ? 1 : nameSimilarity(key, this.nodes[id]);
        if (sim >= GATE) out.push({ node: id, sim });
      }
    }
    return out.sort((a, b) => b.sim - a.sim || a.node - b.node).slice(0, k);
  }
}

function relationSimilarity(a: string, b: string): number {
  const wa = new Set(nameKey(a).split(' '));
  const wb = new Set(nameKey(b).split(' '));
  let n = 0;
  for (const w of wa) if (wb.has(w)) n++;
  const overlap = wa.size && wb.size ? n / Math.min(wa.size, wb.size) : 0;
  return Math.max(overlap, nameSimilarity(a, b));
}

const isVar = (s: string) => s.startsWith('?');

interface Partial {
  cost: number;
  facts: number[];
  bind: Map<string, string>;
}

/** Branch-and-bound over the conditions: the K cheapest consistent assignments. */
function search(index: MicroIndex, conditions: PatternTriple[], k: number, cands: CandidateLookup): Partial[] {
  const options = conditions.map(([h, r, t]) => factOptions(index, h, r, t, cands));
  const best: Partial[] = [];
  const bound = () => (best.length < k ? Infinity : best[best.length - 1].cost);
  const step = (i: number, p: Partial) => {
    if (p.cost >= bound()) return;
    if (i === conditions.length) {
      best.push(p);
      best.sort((a, b) => a.cost - b.cost);
      if (best.length > k) best.pop();
      return;
    }
    const [h, , t] = conditions[i];
    for (const o of options[i]) {
      const f = index.facts[o.fact];
      const bind = new Map(p.bind);
      if (!consistent(bind, h, f.u) || !consistent(bind, t, f.v)) continue;
      step(i + 1, { cost: p.cost + o.cost, facts: [...p.facts, o.fact], bind });
    }
  };
  if (options.every((o) => o.length)) step(0, { cost: 0, facts: [], bind: new Map() });
  return best;
}

function consistent(bind: Map<string, string>, term: string, value: string): boolean {
  if (!isVar(term)) return true;
  const had = bind.get(term);
  if (had !== undefined && had !== value) return false;
  bind.set(term, value);
  return true;
}

/** Facts that can satisfy one condition, with their cost (gated, at most K per named end). */
function factOptions(index: MicroIndex, h: string, r: string, t: string, cands: CandidateLookup): { fact: number; cost: number }[] {
  const ends = [h, t].map((x) => (isVar(x) ? undefined : cands(x)));
  const pool = new Set<number>();
  for (const c of ends) for (const n of c ?? []) for (const f of index.factsOf[n.node]) pool.add(f);
  const out: { fact: number; cost: number }[] = [];
  for (const fi of pool) {
    const f = index.facts[fi];
    const simU = ends[0] ? (ends[0].find((n) => index.nodes[n.node] === (nameKey(f.u) || f.u.toLowerCase()))?.sim ?? 0) : 1;
    const simV = ends[1] ? (ends[1].find((n) => index.nodes[n.node] === (nameKey(f.v) || f.v.toLowerCase()))?.sim ?? 0) : 1;
    const simR = isVar(r) ? 1 : relationSimilarity(r, f.r);
    if (simU < GATE || simV < GATE || (simR < GATE && !(ends[0] && ends[1]))) continue;
    out.push({ fact: fi, cost: 1 - simU + (1 - simV) + (1 - Math.max(simR, 0)) });
  }
  return out.sort((a, b) => a.cost - b.cost).slice(0, 4 * TOP_K);
}

/** Graph-level matching plus node-level boosting for one query. */
export function matchMicro(
  index: MicroIndex,
  conditions: PatternTriple[],
  queryNames: string[],
  k = TOP_K,
  cands: CandidateLookup = (name) => index.candidates(name),
): MicroMatchResult {
  const sMicro = new Map<number, number>();
  const sFragment = new Map<string, number>();
  const seeds = new Map<number, number>();
  const put = (m: Map<number, number>, key: number, v: number) => m.set(key, Math.max(m.get(key) ?? 0, v));
  const named = conditions.filter(([h, , t]) => !isVar(h) || !isVar(t));
  const subgraphs = named.length ? search(index, named, k, cands) : [];
  for (const sg of subgraphs) {
    const score = Math.exp(-sg.cost);
    for (const fi of sg.facts) {
      const f = index.facts[fi];
      put(sMicro, f.doc, score);
      sFragment.set(f.fragmentId, Math.max(sFragment.get(f.fragmentId) ?? 0, score));
      for (const e of [f.uEntity, f.vEntity]) if (e >= 0) put(seeds, e, score);
    }
  }
  // Node-level boosting: documents of the micro nodes nearest to the query's names (not seeds).
  for (const name of queryNames) {
    for (const c of cands(name)) {
      const spread = fragmentsPerDoc(index, c.node);
      for (const fi of index.factsOf[c.node]) {
        const f = index.facts[fi];
        put(sMicro, f.doc, c.sim);
        // Within a document a node found in n fragments tells them apart n times less (the within-document idf
        // idea): the fragment boost is divided by n. Document scores (sMicro) keep the plain similarity.
        const v = c.sim / spread.get(f.doc)!.size;
        sFragment.set(f.fragmentId, Math.max(sFragment.get(f.fragmentId) ?? 0, v));
      }
    }
  }
  return { sMicro, sFragment, seeds, matched: subgraphs.map((sg) => sg.facts.map((i) => index.facts[i])) };
}

/** Per document, the distinct fragments holding facts of one micro node. */
function fragmentsPerDoc(index: MicroIndex, node: number): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  for (const fi of index.factsOf[node]) {
    const f = index.facts[fi];
    (out.get(f.doc) ?? out.set(f.doc, new Set()).get(f.doc)!).add(f.fragmentId);
  }
  return out;
}
