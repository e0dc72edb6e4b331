/**
 * The untrained graph scorer ('dualg-heuristic', and the stand-in for the GNN
 * until a checkpoint exists): seed-weighted propagation over the macro graph.
 *  1. Direct: a document gains w_e x omega from each seed entity e it holds
 *     (omega = 1 for the document e titles, `mention` for one that mentions e);
 *     equivalent / part-of neighbours of a seed count at their edge weight x `equivalent`.
 *  2. Bridge: from the best direct documents, each title-mention link (the seed
 *     document mentions entity x, document d is titled x) passes on
 *     s_direct x `bridge` x (1 + `context` x [mention sentence shares the question's
 *     relation words] ) -- on 2Wiki most questions are exactly this: a seed passage
 *     plus the passage titled by an entity it mentions.
 *  3. Lexical: every scored document gains `lexical` x the share of the question's
 *     relation words among its own words (which of the bridges answers "died").
 * Scores are comparable across documents of one query only.
 */
import type { EvidencePath } from '../../pipeline/ranked-evidence';
import { REL_EQUIVALENT, REL_PART_OF } from '../graph/types';
import type { GraphView } from './graph-view';
import { relationShare, type RelationWord } from './relation-words';

export interface HeuristicSettings {
  mention: number;
  equivalent: number;
  bridge: number;
  context: number;
  lexical: number;
  /** Share of the smaller of (direct, bridge) added when a document is both. */
  both: number;
  /** How many documents pass scores on at each hop. */
  fanout: number;
  /** Bridge hops (1: seed passage -> bridge; 2: one more). */
  hops: number;
  /** Weight of co-mention bridges (0 = off). */
  comention: number;
  /** 1: documents titled by the strongest seeds rank first (0 = off). */
  seedFirst: number;
}

const MAX_COMENTION_DOCS = 60;

/**
 * Defaults: bridge, seedFirst and comention/hops were picked from a small grid on the dev questions of
 * 2Wiki, MuSiQue and HotpotQA together (scripts/dualg-kfold.ts reports the k-fold figures of that choice).
 */
export const HEURISTIC_DEFAULTS: HeuristicSettings = {
  mention: 0.5,
  equivalent: 0.8,
  bridge: 0.6,
  context: 1,
  both: 0.25,
  lexical: 0.3,
  fanout: 8,
  hops: 2,
  comention: 0.3,
  seedFirst: 1,
};

export interface SeedInput {
  entity: number;
  weight: number;
}

export interface GraphScores {
  /** Document index -> score. */
  docScores: Map<number, number>;
  /** Entity -> score (seeds and the entities bridges went through). */
  nodeScores: Map<number, number>;
  paths: EvidencePath[];
}

/** Seeds plus their equivalent / part-of neighbours at reduced weight. */
function expandSeeds(view: GraphView, seeds: SeedInput[], factor: number): Map<number, number> {
  const out = new Map<number, number>();
  const put = (e: number, w: number) => out.set(e, Math.max(out.get(e) ?? 0, w));
  for (const s of seeds) {
    put(s.entity, s.weight);
    for (let k = view.adjOffset[s.entity]; k < view.adjOffset[s.entity + 1]; k++) {
      const t = view.g.triples[view.adjTriple[k]];
      if (t.rel === REL_EQUIVALENT || (t.rel === REL_PART_OF && t.head === s.entity)) put(view.adjNode[k], s.weight * factor * t.weight);
    }
  }
  return out;
}

/** How well a mention's words fit the question's relation words: its lead words count fully, the rest of its sentence half. */
function contextMatch(relWords: RelationWord[], lead: string | undefined, context: string | undefined): number {
  if (!relWords.length) return 0;
  const near = new Set(lead ? lead.split(' ') : []);
  const far = new Set(context ? context.split(' ') : []);
  return Math.max(
    relationShare(relWords, (w) => near.has(w)),
    0.5 * relationShare(relWords, (w) => far.has(w)),
  );
}

/**
 * The documents titled by the strongest seeds (weight >= half the best) go first, in seed-weight order: the
 * passages a question names are its first hop, whatever passes through them afterwards.
 */
function seedTitlesFirst(view: GraphView, seeds: SeedInput[], docScores: Map<number, number>): void {
  const top = Math.max(0, ...seeds.map((x) => x.weight));
  const ceiling = Math.max(0, ...docScores.values());
  for (const x of seeds) {
    if (x.weight < 0.5 * top) continue;
    for (const d of view.titleDocsOf[x.entity]) docScores.set(d, ceiling + (docScores.get(d) ?? 0));
  }
}

/** Per document: the weighted share of the question's relation words it holds (through the inverted stem index). */
function relationFit(view: GraphView, relWords: RelationWord[]): Map<number, number> {
  const fit = new Map<number, number>();
  for (const w of relWords) {
    const docs = new Set<number>();
    for (const st of w.stems) for (const d of view.stemDocs(st)) docs.add(d);
    for (const d of docs) fit.set(d, (fit.get(d) ?? 0) + w.weight);
  }
  return fit;
}

export function heuristicScores(view: GraphView, seeds: SeedInput[], relWords: RelationWord[], s: HeuristicSettings = HEURISTIC_DEFAULTS): GraphScores {
  const g = view.g;
  const direct = new Map<number, number>();
  const via = new Map<number, number>();
  const nodeScores = expandSeeds(view, seeds, s.equivalent);
  for (const [e, w] of nodeScores) {
    for (const { doc, weight } of g.entityDocs[e]) {
      const add = w * (weight >= 1 ? 1 : s.mention);
      direct.set(doc, (direct.get(doc) ?? 0) + add);
      if (!via.has(doc)) via.set(doc, e);
    }
  }
  const docScores = new Map(direct);
  const fits = relationFit(view, relWords);
  const best = new Map<number, [from: number, d: number, x: number, score: number]>();
  const maxIdf = Math.log(1 + Math.max(1, g.docs.length));
  let frontier = [...direct.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, s.fanout);
  for (let hop = 0; hop < s.hops && frontier.length; hop++) {
    const reached = new Map<number, number>();
    const offer = (d2: number, link: number, from: number, d: number, x: number) => {
      const own = direct.get(d2) ?? 0;
      const combined = Math.max(own, link) + s.both * Math.min(own, link);
      if ((docScores.get(d2) ?? 0) >= combined) return;
      docScores.set(d2, combined);
      reached.set(d2, link);
      nodeScores.set(x, Math.max(nodeScores.get(x) ?? 0, link));
      best.set(d2, [from, d, x, link]);
    };
    for (const [d, sd] of frontier) {
      for (const ti of view.docMentions[d]) {
        const t = g.triples[ti];
        const from = via.get(d) ?? t.head;
        const link = sd * s.bridge * (1 + s.context * contextMatch(relWords, t.lead, t.context));
        for (const d2 of view.titleDocsOf[t.tail]) if (d2 !== d) offer(d2, link, from, d, t.tail);
        if (!s.comention) continue;
        // Co-mention: another passage naming the same entity, if it also speaks of the asked relation.
        const docs = g.entityDocs[t.tail];
        if (docs.length > MAX_COMENTION_DOCS) continue;
        const rarity = view.idf[t.tail] / maxIdf;
        for (const { doc: d2, weight } of docs) {
          if (d2 === d || weight >= 1) continue;
          const fit = fits.get(d2) ?? 0;
          if (fit > 0) offer(d2, sd * s.comention * rarity * fit, from, d, t.tail);
        }
      }
    }
    frontier = [...reached.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, s.fanout);
  }
  for (const [d, v] of docScores) docScores.set(d, v + s.lexical * (fits.get(d) ?? 0));
  if (s.seedFirst) seedTitlesFirst(view, seeds, docScores);
  // Paths are built for the ten best bridged documents only (building one per offer cost most of the time).
  const top = [...best.entries()].sort((a, b) => b[1][3] - a[1][3] || a[0] - b[0]).slice(0, 10);
  return { docScores, nodeScores, paths: top.map(([d2, [from, d, x, score]]) => bridgePath(view, from, d, x, d2, score)) };
}

function bridgePath(view: GraphView, seed: number, d: number, x: number, d2: number, score: number): EvidencePath {
  const g = view.g;
  const steps = [
    { from: g.entityNames[seed], relation: 'occurs in', to: g.docs[d].title, source: { docId: g.docs[d].id } },
    { from: g.docs[d].title, relation: 'mentions', to: g.entityNames[x], source: { docId: g.docs[d].id } },
    { from: g.entityNames[x], relation: 'titles', to: g.docs[d2].title, source: { docId: g.docs[d2].id } },
  ];
  return { score, steps, docs: [g.docs[d].id, g.docs[d2].id] };
}
