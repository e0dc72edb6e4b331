/**
 * One query through DualG-MRAG on a loaded graph: entity linking, micro
 * matching (pattern graph, branch-and-bound, node boosting), the seed mask,
 * a graph scorer (trained GNN, the untrained heuristic, or PPR), the micro
 * fusion into s_final, and the ranked fragments: each graph-ranked document is
 * represented by its best hybrid hit (else its first fragment), and the hybrid
 * ranking fills the list when the graph reaches fewer than k documents.
 * Without the macro graph (the paper's "w/o Macro" ablation) nothing of the
 * macro side is read -- no linking, no propagation, no hybrid fallback or
 * fill-up: the micro matches alone rank the documents (microOnly).
 * Every result carries the scorer's identity (RankedEvidence.system).
 */
import { parsePattern } from '../offline/pattern';
import type { Fragment } from '../../corpus/types';
import type { SearchHit } from '../../index/types';
import type { KbSearchOptions, KnowledgeBase } from '../../pipeline/knowledge-base';
import { docScoresFromHits as docScoresOf, type RankedEvidence } from '../../pipeline/ranked-evidence';
import { withPaths, type EvidencePath } from '../paths/evidence-path';
import { searchPattern } from './search-pattern';
import { entities } from '../../util/text-rules';
import type { GnnGraph, QueryPrior } from '../types';
import { fuseScores, FUSION_DEFAULTS, sumScores, type FusionRule, type FusionSettings } from './fuse';
import type { GraphView } from './graph-view';
import { heuristicScores, HEURISTIC_DEFAULTS, type HeuristicSettings, type SeedInput } from './heuristic-scorer';
import { linkQuery, MAX_PER_NAME } from './link';
import { TRIGRAM_LINKING_LABEL, type MentionLinker } from './dense-link';
import { matchMicro, TOP_K, type MicroIndex, type MicroMatchResult, type PatternTriple } from './micro-match';
import type { MicroCandidateSource } from './micro-dense';
import { fragmentBoosts, LABEL_MATCH_DEFAULTS } from './micro-label-match';
import { pprScores } from './ppr';
import { hybridRecip, queryPrior, uncoveredText } from './prior';
import { relationWords } from './relation-words';
import { hashedQueryVector, type GnnScorer } from './scorer';
import { scorerIdentity, type CheckpointIdentity, type ScorerIdentity, type ScorerName } from './scorer-identity';
import { KfError } from '../../util/errors';
import { choiceLabel, type BenchChoice } from '../bench-settings';

export type { ScorerName } from './scorer-identity';

export interface SearcherSettings {
  scorer: ScorerName;
  macro: boolean;
  micro: boolean;
  lexicon: boolean;
  heuristic: HeuristicSettings;
  fusion: FusionSettings;
  /** 'max': the paper's fusion (eq. 9); 'sum': ScienceQA's additive ranking of macro and micro scores (Appendix C.1). */
  fusionRule: FusionRule;
  /** Hybrid hits fetched for fragment choice and fill-up. */
  pool: number;
  /** Weight of the hybrid's reciprocal rank added to s_final (0: the hybrid only fills up). */
  hybrid: number;
  /**
   * Offset of every graph-reached document (1: any of them outranks every hybrid-only one, the hybrid only fills
   * up; 0: one scale, s_final + hybrid x 1/(1 + hybrid rank), so a document the graph barely reached competes with
   * the hybrid's best on the evidence of both: CombSUM of the two normalised scores).
   */
  graphFirst: number;
  /** Share of the largest possible idf a linked seed needs for the graph to rank (else hybrid). */
  minSeedIdf: number;
  /** With only common entities linked, seed the graph from this many top hybrid documents (0 = plain hybrid). */
  pseudoSeeds: number;
  /**
   * Partial-name linking (link.ts, partial-names.ts; 0 = off): a mention no dictionary name matched, or whose name titles
   * no passage, links the titles it is the leading or trailing span of, at this share of their idf / candidates.
   */
  partialLink: number;
  /**
   * Pseudo-relevance feedback (Rocchio; RM3's top documents; 0 = off): the title entities of the hybrid's first `prf`
   * passages join the linked seeds, the i-th (from 1) at mention x minSeedIdf x max idf / (1 + i): feedback is
   * weaker evidence than a named entity, below the share that steers the ranking, so it never decides seedFirst.
   */
  prf: number;
  /** Also when nothing at all was linked (else: plain hybrid, as the spec's fallback). */
  pseudoOnNoLink: boolean;
  /** One-document ranking: question content words match micro fact labels; "Figure N" matches that figure (micro-label-match.ts). */
  microLabels: boolean;
  microFigures: boolean;
}

export const SEARCHER_DEFAULTS: SearcherSettings = {
  scorer: 'heuristic',
  macro: true,
  micro: true,
  lexicon: true,
  heuristic: HEURISTIC_DEFAULTS,
  fusion: FUSION_DEFAULTS,
  fusionRule: 'max',
  pool: 20,
  hybrid: 0,
  graphFirst: 1,
  minSeedIdf: 0.5,
  pseudoSeeds: 2,
  partialLink: 0,
  prf: 0,
  pseudoOnNoLink: false,
  microLabels: LABEL_MATCH_DEFAULTS.labels,
  microFigures: LABEL_MATCH_DEFAULTS.figures,
};

export interface SearcherParts {
  /** The macro graph's query view (never read without the macro graph). */
  view: GraphView;
  /** Document ids by document index (the corpus's, shared by both tiers). */
  docIds: string[];
  micro: MicroIndex;
  visualDocs: Set<number>;
  /** `embedQuery`: Enc(q) from the embeddings stage, for checkpoints built with queryEncoder 'embeddings' (the paper preset). */
  gnn?: { graph: GnnGraph; scorer: GnnScorer; checkpoint?: CheckpointIdentity; embedQuery?: (text: string) => Promise<Float32Array> };
  /** The dense mention linker (`linking = "stage"`); absent: the trigram name index, the offline stand-in. */
  linker?: MentionLinker;
  /** Micro candidates by dense top-K (`microCandidates = "stage"`, micro-dense.ts); absent: the trigram name index, the offline stand-in. */
  microCandidates?: MicroCandidateSource;
}

const now = () => performance.now();

/** How the pattern was parsed when the caller gave none (kf eval retrieval, the tools): the rule stand-in. */
export const PATTERN_STAND_IN = 'offline rules (stand-in; no pattern stage called)';

/** The condition triples: the caller's parse (the pattern stage) when given, else the rule stand-in's. */
function patternConditions(query: string, opts: KbSearchOptions): PatternTriple[] {
  return searchPattern(opts)?.conditions ?? ((parsePattern({ role: 'pattern', question: query }).conditions ?? []) as PatternTriple[]);
}

export class DualgSearcher {
  private readonly docIndex: Map<string, number>;
  /**
   * The scorer's identity plus who linked the query's mentions (`linking`) and which settings ranked (`settings`:
   * "defaults", or a benchmark's k-fold choice, bench-settings.ts; `settingsFrom` says where that choice comes from).
   */
  readonly identity: ScorerIdentity & { linking: string; settings: string; settingsFrom?: string; microCandidates?: string; fusionRule?: string };

  constructor(
    private readonly parts: SearcherParts,
    private readonly s: SearcherSettings,
    private readonly name: string,
    choice?: BenchChoice,
  ) {
    this.docIndex = new Map(parts.docIds.map((id, i) => [id, i]));
    if (s.macro && s.scorer === 'gnn' && !parts.gnn)
      throw new KfError('gnn_checkpoint_missing', `${name}: scorer gnn was asked for and no trained GNN was given`, 'load a checkpoint (kf train gnn)');
    const removed = [...(s.macro ? [] : ['macro graph']), ...(s.micro ? [] : ['micro graph'])];
    const base = scorerIdentity(s.macro ? s.scorer : 'none', removed, s.scorer === 'gnn' ? parts.gnn?.checkpoint : undefined);
    // The default (trigram) linking keeps the label every earlier run carries; the dense linker is named in it.
    // Without the macro graph nothing is linked (microOnly), so no linker is named.
    const linking = s.macro ? (parts.linker?.label ?? TRIGRAM_LINKING_LABEL) : 'none (without the macro graph)';
    const linked = parts.linker && s.macro ? `${base.label}; entities linked by the ${linking}` : base.label;
    // The default (trigram) micro candidates keep the earlier label; the dense ones are named.
    const withMicro = parts.microCandidates && s.micro ? `${linked}; ${parts.microCandidates.label}` : linked;
    // ScienceQA's additive ranking is named; the default max fusion keeps the earlier label.
    const label = s.fusionRule === 'sum' ? `${withMicro}; s_final = macro + micro (ScienceQA's sum)` : withMicro;
    this.identity = {
      ...base,
      linking,
      ...(parts.microCandidates && s.micro ? { microCandidates: parts.microCandidates.label } : {}),
      ...(s.fusionRule === 'sum' ? { fusionRule: 'sum' } : {}),
      settings: choiceLabel(choice),
      ...(choice ? { settingsFrom: choice.evidence } : {}),
      label: choice ? `${label}; settings: ${choiceLabel(choice)}` : label,
    };
  }

  async search(query: string, opts: KbSearchOptions & { k: number }, kb: KnowledgeBase): Promise<RankedEvidence> {
    const r = this.s.macro ? await this.searchBothTiers(query, opts, kb) : await this.microOnly(query, opts, kb);
    // Who parsed the query pattern travels with the scorer: a rule stand-in is never reported as the model parser.
    return { ...r, system: { ...this.identity, pattern: searchPattern(opts)?.by ?? PATTERN_STAND_IN } };
  }

  /**
   * "w/o Macro": the micro graph alone. The query's names come from the pattern stage or the rule NER (linking
   * reads the macro names), matched facts rank their documents by s_micro, and a question no micro fact matches gets nothing:
   * no hybrid fills in, so the ablation shows what the macro side contributes.
   */
  private async microOnly(query: string, opts: KbSearchOptions & { k: number }, kb: KnowledgeBase): Promise<RankedEvidence> {
    const t0 = now();
    const conditions = patternConditions(query, opts);
    const names = searchPattern(opts)?.entities ?? entities(query);
    const m = await this.microMatch(conditions, names);
    const allowed = opts.docIds ? new Set(opts.docIds) : undefined;
    const bestFragment = new Map<number, [string, number]>();
    for (const f of this.parts.micro.facts) {
      const v = m?.sFragment.get(f.fragmentId);
      if (v !== undefined && v > (bestFragment.get(f.doc)?.[1] ?? -1)) bestFragment.set(f.doc, [f.fragmentId, v]);
    }
    const ranked = [...(m?.sMicro ?? new Map<number, number>())].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const hits: SearchHit[] = [];
    for (const [d, sc] of ranked) {
      if (hits.length >= opts.k) break;
      const id = this.parts.docIds[d];
      const h = allowed && !allowed.has(id) ? undefined : fragmentHit(kb.fragment(bestFragment.get(d)?.[0] ?? `${id}#0`));
      if (h && (!opts.types || opts.types.includes(h.kind))) hits.push({ ...h, rank: hits.length + 1, score: sc, via: 'expansion', relation: 'dualg-micro' });
    }
    const matching = now() - t0;
    return {
      query,
      retriever: this.name,
      hits,
      docs: hits.map((h) => ({ docId: h.docId, score: h.score })),
      timings: { matching, totalMs: matching },
      notes: [hits.length ? 'without the macro graph: micro matches only' : 'without the macro graph: no micro fact matched, nothing retrieved'],
    };
  }

  /** Micro matching with the trigram candidates (default) or the dense top-K ones (one embedding call per query). */
  private async microMatch(conditions: PatternTriple[], names: string[]): Promise<MicroMatchResult | undefined> {
    if (!this.s.micro || !this.parts.micro.facts.length) return undefined;
    const dense = this.parts.microCandidates;
    if (!dense) return matchMicro(this.parts.micro, conditions, names);
    const cands = await dense.lookup(this.parts.micro, [...conditions.flatMap(([h, , t]) => [h, t]), ...names]);
    return matchMicro(this.parts.micro, conditions, names, TOP_K, cands);
  }

  private async searchBothTiers(query: string, opts: KbSearchOptions & { k: number }, kb: KnowledgeBase): Promise<RankedEvidence> {
    const t0 = now();
    const timings: Record<string, number> = {};
    const notes: string[] = [];
    const { view } = this.parts;
    // Entity recognition: the pattern stage's entities when a model parsed the query, else the rule NER.
    const names = searchPattern(opts)?.entities ?? entities(query);
    const near = this.parts.linker ? await this.parts.linker.nearestOf(view, names, MAX_PER_NAME) : undefined;
    const link = linkQuery(view, query, names, near ? (e) => near.get(e) ?? [] : undefined, this.s.partialLink);
    timings.linking = now() - t0;
    const t1 = now();
    const conditions = patternConditions(query, opts);
    const m = await this.microMatch(conditions, [...link.seeds.map((x) => x.surface), ...names]);
    timings.matching = now() - t1;
    const seeds = mergeSeeds(link.seeds, m?.seeds);
    const hybridP = kb.search(query, {
      mode: 'hybrid',
      k: Math.max(opts.k, this.s.pool),
      docIds: opts.docIds,
      types: opts.types,
      queryVector: opts.queryVector,
    });
    if (opts.docIds?.length === 1) {
      // One document (MMLongBench-Doc): rank its fragments, the micro matches pointing at tables and charts.
      const h = await hybridP;
      const labels = { labels: this.s.microLabels, figures: this.s.microFigures };
      const micro = m ? fragmentBoosts(m.sFragment, this.parts.micro.facts, query, labels) : undefined;
      const hits = rankFragments(h.hits, micro?.boosts ?? new Map(), this.s.fusion.beta, opts, kb, micro?.referenced);
      notes.push('one document: its fragments ranked by the hybrid plus micro matches');
      return {
        query,
        retriever: this.name,
        hits,
        docs: docScoresOf(hits),
        timings: { ...timings, hybrid: h.timings.totalMs ?? 0, totalMs: now() - t0 },
        notes,
      };
    }
    // Seeds as common as "American" (idf below half the largest possible) say too little to steer the ranking.
    const maxIdf = Math.log(1 + Math.max(1, this.parts.docIds.length));
    const strong = link.seeds.some((x) => x.weight >= this.s.minSeedIdf * maxIdf);
    let seedsUsed = seeds;
    if (!m?.sMicro.size && (seeds.length || this.s.pseudoOnNoLink) && !strong && this.s.pseudoSeeds > 0) {
      // Only common entities (or none) linked: the hybrid's best passages are the first hop, the graph finds the bridges.
      seedsUsed = pseudoSeeds(view, (await hybridP).hits, this.s.pseudoSeeds, maxIdf, this.docIndex);
      const why = seeds.length ? 'only common entities linked' : 'no linkable entity';
      if (seedsUsed.length) notes.push(`${why}: fell back to hybrid for the first hop; the graph starts from its top passages`);
    } else if (!m?.sMicro.size && (!seeds.length || !strong)) {
      const h = await hybridP;
      notes.push(seeds.length ? 'only common entities linked: fell back to hybrid' : 'no linkable entity: fell back to hybrid');
      return {
        ...h,
        query,
        retriever: this.name,
        hits: h.hits.slice(0, opts.k),
        docs: h.docs.slice(0, opts.k),
        notes,
        timings: { ...timings, hybrid: h.timings.totalMs ?? 0, totalMs: now() - t0 },
      };
    }
    if (this.s.prf > 0 && seedsUsed === seeds) seedsUsed = this.withFeedback(seeds, (await hybridP).hits, maxIdf);
    const t2 = now();
    const rel = relationWords(query, link.covered, { lexicon: this.s.lexicon, idf: this.relationIdf() });
    const { docScores, paths } = await this.score(seedsUsed, rel, query, link.covered, hybridP);
    timings.gnn = now() - t2;
    // Without the micro graph there is no micro score to fuse, so no visual document is decayed for lacking one.
    const final =
      this.s.fusionRule === 'sum'
        ? sumScores(docScores, m?.sMicro ?? new Map())
        : fuseScores(docScores, this.s.micro ? this.parts.visualDocs : new Set(), m?.sMicro ?? new Map(), this.s.fusion);
    const t3 = now();
    const hybrid = await hybridP;
    timings.hybrid = now() - t3;
    const hits = this.rankHits(final, hybrid.hits, opts, kb);
    timings.paths = 0;
    timings.totalMs = now() - t0;
    return {
      query,
      retriever: this.name,
      hits,
      docs: hits.map((h) => ({ docId: h.docId, score: h.score })),
      extra: withPaths(paths),
      timings,
      ...(notes.length ? { notes } : {}),
    };
  }

  /** The linked seeds plus the title entities of the hybrid's first `prf` passages, the i-th (from 1) at mention x minSeedIdf x max idf / (1 + i). */
  private withFeedback(seeds: SeedInput[], hits: SearchHit[], maxIdf: number): SeedInput[] {
    const out = new Map(seeds.map((x) => [x.entity, x.weight]));
    const top = this.s.heuristic.mention * this.s.minSeedIdf * maxIdf;
    pseudoSeeds(this.parts.view, hits, this.s.prf, maxIdf, this.docIndex).forEach((x, i) => out.set(x.entity, Math.max(out.get(x.entity) ?? 0, top / (2 + i))));
    return [...out.entries()].map(([entity, weight]) => ({ entity, weight }));
  }

  /** idf ^ relIdf of a relation word's stem over the corpus (heuristic.relIdf; undefined when 0). */
  private relationIdf(): ((stem: string) => number) | undefined {
    const e = this.s.heuristic.relIdf ?? 0;
    if (!e) return undefined;
    const { view } = this.parts;
    const n = Math.max(1, view.g.docs.length);
    return (st) => Math.log(1 + n / Math.max(1, view.stemDocs(st).length)) ** e;
  }

  private async score(
    seeds: SeedInput[],
    rel: ReturnType<typeof relationWords>,
    query: string,
    covered: Set<number>,
    hybridP: Promise<RankedEvidence>,
  ): Promise<{ docScores: Map<number, number>; paths: EvidencePath[] }> {
    const { view, gnn } = this.parts;
    if (this.s.scorer === 'ppr') return { docScores: pprScores(view, seeds).docScores, paths: [] };
    if (this.s.scorer === 'gnn' && gnn) {
      const total = seeds.reduce((a, x) => a + x.weight, 0) || 1;
      let prior: QueryPrior | undefined;
      const heuristic = this.s.heuristic;
      // The hybrid's ranking is text evidence the prior-conditioned GNN reads beside the heuristic's (query/prior.ts);
      // its first HYBRID_PRIOR_HITS hits, as training reads them (train/hybrid-evidence.ts).
      const hybrid = hybridRecip((await hybridP).hits, this.docIndex);
      const out = await gnn.scorer(gnn.graph, {
        seeds: Int32Array.from(seeds.map((x) => x.entity)),
        seedWeights: Float32Array.from(seeds.map((x) => x.weight / total)),
        queryVector: hashedQueryVector(query),
        queryText: query,
        ...(gnn.embedQuery ? { queryEmbedding: await gnn.embedQuery(query) } : {}),
        relationText: uncoveredText(query, covered),
        // Read by prior-conditioned models only (GnnConfig.prior), so built on first read; exactly as training builds it.
        get prior() {
          return (prior ??= queryPrior(view, seeds, rel, heuristic, hybrid).prior);
        },
      });
      // GNN document scores may be logits (any sign); documents outside the active subgraph are -Infinity or NaN.
      const docScores = new Map<number, number>();
      out.docScores.forEach((v, d) => Number.isFinite(v) && docScores.set(d, v));
      return { docScores, paths: out.paths };
    }
    const h = heuristicScores(view, seeds, rel, this.s.heuristic);
    return { docScores: h.docScores, paths: h.paths };
  }

  /**
   * Documents by s_final (in [0, 1]) plus `hybrid` x 1/(1 + hybrid rank): with weight 0 the hybrid only
   * fills the list after the graph's documents; above 0 lexical evidence can reorder them.
   */
  private rankHits(final: Map<number, number>, hybrid: SearchHit[], opts: KbSearchOptions & { k: number }, kb: KnowledgeBase): SearchHit[] {
    const allowed = opts.docIds ? new Set(opts.docIds) : undefined;
    const ids = this.parts.docIds;
    const score = new Map<string, number>();
    for (const [d, v] of final) if (!allowed || allowed.has(ids[d])) score.set(ids[d], this.s.graphFirst + v);
    const bestHit = new Map<string, SearchHit>();
    for (const h of hybrid) {
      if (bestHit.has(h.docId)) continue;
      bestHit.set(h.docId, h);
      // A tiny weight when 0, so hybrid-only documents keep the hybrid order behind the graph's.
      score.set(h.docId, (score.get(h.docId) ?? 0) + Math.max(this.s.hybrid, 1e-6) / (1 + bestHit.size));
    }
    const ranked = [...score.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const out: SearchHit[] = [];
    for (const [id, sc] of ranked) {
      if (out.length >= opts.k) break;
      const h = bestHit.get(id) ?? fragmentHit(kb.fragment(`${id}#0`));
      if (h && (!opts.types || opts.types.includes(h.kind))) out.push({ ...h, rank: out.length + 1, score: sc });
    }
    return out;
  }
}

/**
 * Fragments of one document: hybrid reciprocal rank plus FRAGMENT_BOOST x beta x s_micro of the table /
 * image fragment a matched micro fact came from, one hit per page first (onePerPageFirst). On MMLongBench-Doc (ocr off, 49 documents) beta/2 lost
 * 0.008 page R@8 to the hybrid; 0.1 x beta (picked from three tries on the same questions, not held out)
 * gains 0.006: a tie-breaker, no more.
 * A fragment the question points to by name (`referenced`: "Figure 3" -> the image anchored "Figure 3", score 1 over
 * the fragments so anchored) is no guess: it adds REFERENCE_SCORE x its score, the hybrid's first-hit score 1/(2+0).
 */
export const FRAGMENT_BOOST = 0.1;
export const REFERENCE_SCORE = 1 / 2;
export function rankFragments(
  hybrid: SearchHit[],
  sFragment: Map<string, number>,
  beta: number,
  opts: KbSearchOptions & { k: number },
  kb: KnowledgeBase,
  referenced: Map<string, number> = new Map(),
): SearchHit[] {
  const score = new Map<string, number>();
  const hitOf = new Map<string, SearchHit>();
  hybrid.forEach((h, i) => {
    hitOf.set(h.fragmentId, h);
    score.set(h.fragmentId, 1 / (2 + i));
  });
  const add = (id: string, v: number) => {
    const f = hitOf.get(id) ?? fragmentHit(kb.fragment(id));
    if (!f || (opts.docIds && !opts.docIds.includes(f.docId)) || (opts.types && !opts.types.includes(f.kind))) return;
    hitOf.set(id, f);
    score.set(id, (score.get(id) ?? 0) + v);
  };
  for (const [id, s] of sFragment) add(id, FRAGMENT_BOOST * beta * s);
  for (const [id, s] of referenced) add(id, REFERENCE_SCORE * s);
  const ranked = [...score.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return onePerPageFirst(ranked.map(([id, sc]) => ({ ...hitOf.get(id)!, score: sc })))
    .slice(0, opts.k)
    .map((h, i) => ({ ...h, rank: i + 1 }));
}

/**
 * Hits in score order, each page's best hit first and the other hits of already-listed pages after all
 * distinct pages. Page evidence is what is asked for, and on OCR'd slide decks a page's text and image
 * fragments carry the same text, so without this a top-8 lists about 5.4 distinct pages. Hits without a
 * page count as pages of their own. No parameter: the order within each group is the score order.
 */
export function onePerPageFirst<T extends { fragmentId: string; docId: string; page?: number }>(hits: T[]): T[] {
  const seen = new Set<string>();
  const first: T[] = [];
  const rest: T[] = [];
  for (const h of hits) {
    const page = h.page === undefined ? `${h.fragmentId}` : `${h.docId}#p${h.page}`;
    (seen.has(page) ? rest : first).push(h);
    seen.add(page);
  }
  return [...first, ...rest];
}

/** Title entities of the first `n` hybrid documents as seeds, weighted like a well-linked name, by rank. */
function pseudoSeeds(view: GraphView, hits: SearchHit[], n: number, maxIdf: number, docIndex: Map<string, number>): SeedInput[] {
  const out: SeedInput[] = [];
  for (const h of hits) {
    if (out.length >= n) break;
    const d = docIndex.get(h.docId);
    const e = d === undefined ? -1 : view.g.docs[d].titleEntity;
    if (e >= 0 && !out.some((x) => x.entity === e)) out.push({ entity: e, weight: maxIdf / (1 + out.length) });
  }
  return out;
}

function fragmentHit(f: Fragment | undefined): SearchHit | undefined {
  if (!f) return undefined;
  return {
    fragmentId: f.id,
    docId: f.docId,
    kind: f.kind,
    rank: 0,
    score: 0,
    scores: {},
    via: 'expansion',
    relation: 'dualg-graph',
    text: f.text,
    page: f.page,
    section: f.section,
    media: [],
  };
}

/** Linked entities plus micro-projected entities (S_ext); a micro seed weighs its match score times the best linked weight. */
function mergeSeeds(linked: SeedInput[], ext: Map<number, number> | undefined): SeedInput[] {
  const out = new Map<number, number>();
  for (const s of linked) out.set(s.entity, Math.max(out.get(s.entity) ?? 0, s.weight));
  const top = Math.max(1, ...linked.map((s) => s.weight));
  for (const [e, v] of ext ?? []) out.set(e, Math.max(out.get(e) ?? 0, v * top));
  return [...out.entries()].map(([entity, weight]) => ({ entity, weight }));
}
