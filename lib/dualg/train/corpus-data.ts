/**
 * Training examples from a corpus's own graph (no questions needed):
 *  - KG completion: hide an edge (h, r, t), ask "name(h) relation(r)" from seed h, targets = every t' with (h, r, t');
 *  - synthetic multi-hop queries from the passages' links: passage A mentions the
 *    entity that titles passage B; the query is A's title plus the sentence of A
 *    that names B, with B's name removed; the targets are A and B (the 2Wiki shape:
 *    a seed passage and the bridge passage it points to).
 */
import type { DualGraph } from '../graph/types';
import { REL_MENTIONS } from '../graph/types';
import type { GraphView } from '../query/graph-view';
import type { GnnGraph } from '../types';
import type { Rng } from '../../util/rng';
import { hashedQueryVector } from '../query/scorer';
import { gnnQueryFor, QUERY_DEFAULTS, type QuerySettings } from './query-adapter';
import type { TrainExample } from './examples';
import { outAdjacency } from '../gnn/active-subgraph';

export function kgCompletionExamples(graph: GnnGraph, rng: Rng, max: number): TrainExample[] {
  const adj = outAdjacency(graph);
  const out: TrainExample[] = [];
  const picks = rng.sample(
    Array.from({ length: graph.src.length }, (_, i) => i),
    max,
  );
  for (const e of picks) {
    const h = graph.src[e],
      r = graph.rel[e];
    const tails: number[] = [];
    const exclude = new Set<number>();
    for (let k = adj.offsets[h]; k < adj.offsets[h + 1]; k++) {
      const f = adj.edges[k];
      if (graph.rel[f] === r) {
        tails.push(graph.dst[f]);
        exclude.add(f);
      }
    }
    // Hide the reverse edges too, or the answer is one inverse hop away.
    const tailSet = new Set(tails);
    for (const t of tailSet) for (let k = adj.offsets[t]; k < adj.offsets[t + 1]; k++) if (graph.dst[adj.edges[k]] === h) exclude.add(adj.edges[k]);
    const text = `${graph.nodeText[h]} ${graph.relationText[r]}`;
    out.push({
      id: `kg-${e}`,
      query: { seeds: Int32Array.of(h), seedWeights: Float32Array.of(1), queryVector: hashedQueryVector(text), relationText: graph.relationText[r] },
      targetNodes: Int32Array.from(tailSet),
      exclude,
    });
  }
  return out;
}

function sentenceWith(text: string, name: string): string | undefined {
  const lower = name.toLowerCase();
  return text.split(/(?<=[.!?])\s+/).find((s) => s.toLowerCase().includes(lower));
}

/** Up to `max` synthetic two-passage queries. `passageText` maps a graph document index to its text. */
export function syntheticLinkExamples(
  g: DualGraph,
  view: GraphView,
  passageText: (doc: number) => string | undefined,
  rng: Rng,
  max: number,
  s: QuerySettings = QUERY_DEFAULTS,
): TrainExample[] {
  const docOfTitle = new Map<number, number>();
  g.docs.forEach((d, i) => {
    if (d.titleEntity >= 0 && !docOfTitle.has(d.titleEntity)) docOfTitle.set(d.titleEntity, i);
  });
  const links: [number, number][] = [];
  for (const t of g.triples) {
    if (t.rel !== REL_MENTIONS || g.docs[t.doc].titleEntity !== t.head) continue;
    const b = docOfTitle.get(t.tail);
    if (b !== undefined && b !== t.doc) links.push([t.doc, b]);
  }
  const out: TrainExample[] = [];
  for (const [a, b] of rng.shuffle(links)) {
    if (out.length >= max) break;
    const text = passageText(a);
    const bTitle = g.docs[b].title;
    const sentence = text && sentenceWith(text, bTitle);
    if (!sentence) continue;
    const masked = sentence.replace(new RegExp(bTitle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), ' ').replace(/\s+/g, ' ');
    const queryText = `${g.docs[a].title}: ${masked}`;
    const query = gnnQueryFor(view, queryText, s);
    if (!query || query.seeds.includes(g.docs[b].titleEntity)) continue;
    out.push({ id: `syn-${a}-${b}`, query, targetDocs: Int32Array.of(a, b) });
  }
  return out;
}

/** Question examples: gold document ids mapped to graph document indices (questions with no linkable entity are left out and counted). */
export function questionExamples(
  g: DualGraph,
  view: GraphView,
  questions: { id: string; question: string; goldDocs: string[] }[],
  s: QuerySettings = QUERY_DEFAULTS,
): { examples: TrainExample[]; unlinked: string[] } {
  const docIndex = new Map(g.docs.map((d, i) => [d.id, i]));
  const examples: TrainExample[] = [];
  const unlinked: string[] = [];
  for (const q of questions) {
    const gold = q.goldDocs.map((d) => docIndex.get(d)).filter((d): d is number => d !== undefined);
    const query = gnnQueryFor(view, q.question, s);
    if (!query || !gold.length) {
      unlinked.push(q.id);
      continue;
    }
    examples.push({ id: q.id, query, targetDocs: Int32Array.from(gold) });
  }
  return { examples, unlinked };
}
