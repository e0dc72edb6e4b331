/**
 * Relations between knowledge points (spec job 1): RECALL similar points by
 * embedding (k nearest neighbours above a cosine threshold, a cap of edges per
 * point), then let an LLM TYPE only the recalled pairs (stage 'relations';
 * same-topic, extends, contrasts, supports, prerequisite). Offline (or when the
 * model gives no type) a recalled pair stays an untyped 'similar' edge, which is
 * how the paper's graph has more edges than typed ones (299K edges, 133K typed).
 *
 * The engine expands hits one hop along FRAGMENT-level edges, so point-level
 * edges are projected: an edge between points of two different fragments
 * becomes an edge between the fragments (best weight wins; a typed edge wins
 * over 'similar' at the same fragment pair).
 *
 * Recall is deterministic: exact (brute-force) cosine for groups up to
 * `exactBelow` points (O(n^2 dim), bounded by exactBelow); above, a seeded HNSW
 * graph is built (O(n log n)) and each point's neighbours are read from the
 * graph's own lists, refined one step (O(n M dim), no query per point); ties
 * break by point order.
 */
import { loadPrompt } from '../util/prompts';
import { HierarchicalNSW } from 'hnswlib-node';
import type { ChatModel, ChatResponse } from '../model-api/types';
import type { RelationsTask } from './offline/tasks';
import { findJsonObject } from '../model-api/json-repair';
import { errorMessage } from '../util/errors';
import { sha256 } from '../util/hash';
import type { KnowledgePoint, Relation, RelationType } from './types';
import { addUsage, emptyUsage, pointText, type StageUsage } from './knowledge-points';
import { mapLimit } from '../util/worker-pool';
import { dot } from '../util/vectors';
import { graphNeighbourLists, knnFromLists } from './hnsw-links';
import { isSetupFailure } from '../model-api/setup-error';

/** The types an LLM may assign (plus "none" in its reply = recalled but unrelated). */
export const TYPED_RELATIONS: readonly RelationType[] = ['same-topic', 'extends', 'contrasts', 'supports', 'prerequisite'];

export type RelationScope = 'corpus' | 'document' | 'cross-document';

export interface RelationOptions {
  /** Neighbours recalled per point (default 5). */
  k?: number;
  /** Smallest cosine similarity of a recalled pair (default 0.5). */
  minCosine?: number;
  /** Most edges touching one point after de-duplication, strongest first (default 8). */
  maxPerNode?: number;
  /**
   * Which pairs may be recalled: anywhere in the corpus (default), only within
   * one document (single-document benchmarks: the graph a per-document index
   * would have), or only across documents.
   */
  scope?: RelationScope;
  /** Exact kNN for groups up to this many points, HNSW above (default 2,000). */
  exactBelow?: number;
  /**
   * How the HNSW side (groups above exactBelow) finds each point's neighbours:
   * 'graph' (default) reads them from the graph's own neighbour lists, refined
   * one step (no query per point); 'search' queries the graph once per point,
   * the method before graph reuse, kept to measure the two against each other.
   */
  recall?: 'graph' | 'search';
  /** LLM typing: pairs per call (default 16), calls in flight (default 4), max completion tokens (default 1,024). */
  batchPairs?: number;
  concurrency?: number;
  maxTokens?: number;
  /** Drop pairs the LLM did not type instead of keeping them as 'similar' (default false). */
  dropUntyped?: boolean;
  signal?: AbortSignal;
}

export interface ResolvedRelationOptions {
  k: number;
  minCosine: number;
  maxPerNode: number;
  scope: RelationScope;
  exactBelow: number;
  recall: 'graph' | 'search';
}

export function resolveRelationOptions(o: RelationOptions = {}): ResolvedRelationOptions {
  return {
    k: o.k ?? 5,
    minCosine: o.minCosine ?? 0.5,
    maxPerNode: o.maxPerNode ?? 8,
    scope: o.scope ?? 'corpus',
    exactBelow: o.exactBelow ?? 2000,
    recall: o.recall ?? 'graph',
  };
}

/** A recalled pair: indexes into the points array (a < b) and their cosine. */
export interface RecalledPair {
  a: number;
  b: number;
  similarity: number;
}

type GroupPair = { i: number; j: number; sim: number };

/** k nearest neighbours (cosine of unit vectors) of every member of `group` within the group. */
function knnInGroup(group: number[], vectors: readonly Float32Array[], k: number, o: ResolvedRelationOptions, seed: number): GroupPair[] {
  if (group.length < 2) return [];
  const kk = Math.min(k, group.length - 1);
  return group.length <= o.exactBelow ? exactKnnInGroup(group, vectors, kk) : hnswKnnInGroup(group, vectors, kk, o.recall, seed);
}

/** Exact kNN: all pairwise cosines (O(n^2 dim), n bounded by exactBelow), top-k by insertion into a short sorted list (O(n^2 k)). */
function exactKnnInGroup(group: number[], vectors: readonly Float32Array[], kk: number): GroupPair[] {
  const out: GroupPair[] = [];
  const n = group.length;
  const sims = new Float64Array(n * n);
  for (let x = 0; x < n; x++) {
    const vx = vectors[group[x]];
    for (let y = x + 1; y < n; y++) sims[x * n + y] = sims[y * n + x] = dot(vx, vectors[group[y]]);
  }
  const topIdx = new Int32Array(kk);
  const topSim = new Float64Array(kk);
  for (let x = 0; x < n; x++) {
    let len = 0;
    const row = x * n;
    for (let y = 0; y < n; y++) {
      if (y === x) continue;
      const s = sims[row + y];
      if (len === kk && s <= topSim[kk - 1]) continue; // ties keep the earlier point
      let pos = len < kk ? len++ : kk - 1;
      while (pos > 0 && topSim[pos - 1] < s) {
        topSim[pos] = topSim[pos - 1];
        topIdx[pos] = topIdx[pos - 1];
        pos--;
      }
      topSim[pos] = s;
      topIdx[pos] = y;
    }
    for (let t = 0; t < len; t++) out.push({ i: group[x], j: group[topIdx[t]], sim: topSim[t] });
  }
  return out;
}

/**
 * Approximate kNN through a seeded HNSW graph of the group (build O(n log n)).
 * 'graph': each point's neighbours read from the graph's own lists, refined one
 * step and scored exactly (hnsw-links.ts; O(n M dim), no query per point).
 * 'search': one graph query per point (O(n log n) searches; the older method).
 */
function hnswKnnInGroup(group: number[], vectors: readonly Float32Array[], kk: number, recall: 'graph' | 'search', seed: number): GroupPair[] {
  const out: GroupPair[] = [];
  const n = group.length;
  const index = new HierarchicalNSW('ip', vectors[group[0]].length);
  index.initIndex(n, 12, 64, seed);
  for (let x = 0; x < n; x++) index.addPoint(Array.from(vectors[group[x]]), x);
  if (recall === 'graph') {
    knnFromLists(
      graphNeighbourLists(index, n),
      kk,
      (x, y) => dot(vectors[group[x]], vectors[group[y]]),
      () => true,
      (x, y, sim) => out.push({ i: group[x], j: group[y], sim }),
    );
    return out;
  }
  index.setEf(Math.max(64, kk * 4));
  for (let x = 0; x < n; x++) {
    const res = index.searchKnn(Array.from(vectors[group[x]]), Math.min(n, kk + 1));
    const hits = res.neighbors.map((y, t) => ({ y, sim: 1 - res.distances[t] })).filter((h) => h.y !== x);
    hits.sort((p, q) => q.sim - p.sim || p.y - q.y);
    for (const h of hits.slice(0, kk)) out.push({ i: group[x], j: group[h.y], sim: h.sim });
  }
  return out;
}

/**
 * Recall similar pairs: kNN per point within its scope group, cosine >=
 * minCosine, never two points of the same fragment (their fragment is one
 * retrieval unit already), undirected and de-duplicated, then each point keeps
 * at most `maxPerNode` edges (strongest first). Sorted by (a, b).
 */
export function recallPairs(points: readonly KnowledgePoint[], vectors: readonly Float32Array[], opts: RelationOptions = {}): RecalledPair[] {
  const o = resolveRelationOptions(opts);
  if (points.length !== vectors.length) throw new Error(`recallPairs: ${points.length} points but ${vectors.length} vectors`);
  const groups = new Map<string, number[]>();
  points.forEach((p, i) => {
    const g = o.scope === 'document' ? p.docId : '';
    let list = groups.get(g);
    if (!list) groups.set(g, (list = []));
    list.push(i);
  });
  // Cross-document scope: recall more neighbours, since same-document ones are dropped below.
  const k = o.scope === 'cross-document' ? o.k * 3 : o.k;
  const best = new Map<string, RecalledPair>();
  for (const group of groups.values()) {
    for (const { i, j, sim } of knnInGroup(group, vectors, k, o, 100)) {
      if (sim < o.minCosine) continue;
      const pi = points[i];
      const pj = points[j];
      if (pi.fragmentId === pj.fragmentId) continue;
      if (o.scope === 'cross-document' && pi.docId === pj.docId) continue;
      const a = Math.min(i, j);
      const b = Math.max(i, j);
      const key = `${a},${b}`;
      const prev = best.get(key);
      if (!prev || sim > prev.similarity) best.set(key, { a, b, similarity: sim });
    }
  }
  const all = [...best.values()].sort((x, y) => y.similarity - x.similarity || x.a - y.a || x.b - y.b);
  const degree = new Map<number, number>();
  const kept: RecalledPair[] = [];
  for (const p of all) {
    const da = degree.get(p.a) ?? 0;
    const db = degree.get(p.b) ?? 0;
    if (da >= o.maxPerNode || db >= o.maxPerNode) continue;
    degree.set(p.a, da + 1);
    degree.set(p.b, db + 1);
    kept.push(p);
  }
  return kept.sort((x, y) => x.a - y.a || x.b - y.b);
}

/** Where LLM typings of pairs are remembered across builds (incremental builds type only new pairs). */
export interface RelationTypeCache {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

export interface RelationIssue {
  code: 'bad_reply' | 'call_failed' | 'unknown_type';
  pairs: number;
  message: string;
}

export interface RelationResult {
  /** Point-level edges, in pair order. */
  relations: Relation[];
  issues: RelationIssue[];
  usage: StageUsage;
  recalled: number;
  typed: number;
  by: 'llm' | 'offline';
}

/** The relation-typing prompt (prompts/relations-system.txt; reply format as the offline backend writes it). */
export function relationsSystemPrompt(): string {
  return loadPrompt('relations-system');
}

export function relationsUserPrompt(items: { from: string; to: string; fromText: string; toText: string }[]): string {
  const lines = items.map((p, i) => `Pair ${i + 1}\n  from ${p.from}: ${p.fromText}\n  to   ${p.to}: ${p.toText}`);
  return `${lines.join('\n\n')}\n\nReturn the JSON object now.`;
}

export interface ParsedTyping {
  /** Per pair index: the type (or 'none'), and whether the model reversed the direction. */
  types: Map<number, { type: RelationType | 'none'; reversed: boolean }>;
  unknownTypes: string[];
  error?: string;
}

const TYPE_ALIASES: Record<string, RelationType | 'none'> = {
  'same-topic': 'same-topic',
  same_topic: 'same-topic',
  sametopic: 'same-topic',
  'same topic': 'same-topic',
  extends: 'extends',
  extend: 'extends',
  contrasts: 'contrasts',
  contrast: 'contrasts',
  supports: 'supports',
  support: 'supports',
  prerequisite: 'prerequisite',
  prerequisites: 'prerequisite',
  'prerequisite-of': 'prerequisite',
  none: 'none',
  unrelated: 'none',
  no: 'none',
  similar: 'none',
};

/** Parse a typing reply against the batch's (from, to) pairs; a `pair` number (1-based) is accepted too. */
export function parseRelationsReply(text: string, batch: readonly { from: string; to: string }[]): ParsedTyping {
  const found = findJsonObject<{ relations?: unknown }>(text, (v) => Array.isArray(v.relations));
  const types: ParsedTyping['types'] = new Map();
  const unknownTypes: string[] = [];
  if (!found) return { types, unknownTypes, error: `no {"relations": [...]} object in the reply (${text.replace(/\s+/g, ' ').slice(0, 80) || 'empty reply'})` };
  const index = new Map<string, number>();
  batch.forEach((p, i) => {
    index.set(`${p.from}\u0000${p.to}`, i);
    if (!index.has(`${p.to}\u0000${p.from}`)) index.set(`${p.to}\u0000${p.from}`, -(i + 1));
  });
  for (const item of found.value.relations as unknown[]) {
    if (!item || typeof item !== 'object') continue;
    const o = item as Record<string, unknown>;
    const rawType = typeof o.type === 'string' ? o.type.trim().toLowerCase() : '';
    const type = TYPE_ALIASES[rawType];
    let at: number | undefined;
    let reversed = false;
    if (typeof o.from === 'string' && typeof o.to === 'string') {
      const v = index.get(`${o.from}\u0000${o.to}`);
      if (v !== undefined) {
        at = v >= 0 ? v : -v - 1;
        reversed = v < 0;
      }
    }
    if (at === undefined && typeof o.pair === 'number' && o.pair >= 1 && o.pair <= batch.length) at = o.pair - 1;
    if (at === undefined) continue;
    if (!type) {
      unknownTypes.push(rawType || '(missing)');
      continue;
    }
    types.set(at, { type, reversed });
  }
  return { types, unknownTypes };
}

function cacheKey(modelId: string, a: KnowledgePoint, b: KnowledgePoint): string {
  return sha256(`relations\u0000${modelId}\u0000${pointText(a)}\u0000${pointText(b)}`);
}

/**
 * Turn recalled pairs into point-level relations: typed by `model` (stage
 * 'relations') when it is a real model, else untyped 'similar'. Typings are
 * looked up in / written to `cache` so an incremental build types new pairs only.
 */
export async function typeRelations(
  points: readonly KnowledgePoint[],
  pairs: readonly RecalledPair[],
  opts: RelationOptions & { model?: ChatModel; cache?: RelationTypeCache } = {},
): Promise<RelationResult> {
  const usage = emptyUsage();
  const issues: RelationIssue[] = [];
  const similar = (p: RecalledPair): Relation => ({ from: points[p.a].id, to: points[p.b].id, type: 'similar', weight: round(p.similarity), by: 'offline' });
  if (!opts.model || opts.model.backend === 'offline') {
    return { relations: pairs.map(similar), issues, usage, recalled: pairs.length, typed: 0, by: 'offline' };
  }
  const model = opts.model;
  const decided = new Map<number, { type: RelationType | 'none'; reversed: boolean }>();
  const todo: number[] = [];
  pairs.forEach((p, i) => {
    const hit = opts.cache?.get(cacheKey(model.id, points[p.a], points[p.b]));
    if (hit) decided.set(i, { type: hit.replace(/:rev$/, '') as RelationType | 'none', reversed: hit.endsWith(':rev') });
    else todo.push(i);
  });
  const size = opts.batchPairs ?? 16;
  const batches: number[][] = [];
  for (let i = 0; i < todo.length; i += size) batches.push(todo.slice(i, i + size));
  await mapLimit(batches, opts.concurrency ?? 4, async (batch) => {
    const items = batch.map((i) => {
      const p = pairs[i];
      return { from: points[p.a].id, to: points[p.b].id, fromText: pointText(points[p.a]), toText: pointText(points[p.b]), similarity: round(p.similarity) };
    });
    const task: RelationsTask = { role: 'relations', pairs: items };
    let reply: ChatResponse;
    try {
      reply = await model.chat(
        {
          stage: 'relations',
          messages: [
            { role: 'system', content: relationsSystemPrompt() },
            { role: 'user', content: relationsUserPrompt(items) },
          ],
          json: true,
          temperature: 0,
          maxTokens: opts.maxTokens ?? 1024,
          task: task as unknown as Record<string, unknown>,
        },
        opts.signal,
      );
    } catch (e) {
      if (opts.signal?.aborted || isSetupFailure(e)) throw e;
      issues.push({ code: 'call_failed', pairs: batch.length, message: `relation typing call failed: ${errorMessage(e)}; pairs kept as 'similar'` });
      return;
    }
    addUsage(usage, reply);
    const parsed = parseRelationsReply(reply.text, items);
    if (parsed.error) {
      issues.push({ code: 'bad_reply', pairs: batch.length, message: `${parsed.error}; pairs kept as 'similar'` });
      return;
    }
    if (parsed.unknownTypes.length) {
      issues.push({
        code: 'unknown_type',
        pairs: parsed.unknownTypes.length,
        message: `unknown relation type(s) ${[...new Set(parsed.unknownTypes)].slice(0, 5).join(', ')}; those pairs kept as 'similar'`,
      });
    }
    for (const [at, v] of parsed.types) {
      const i = batch[at];
      decided.set(i, v);
      const p = pairs[i];
      opts.cache?.set(cacheKey(model.id, points[p.a], points[p.b]), `${v.type}${v.reversed ? ':rev' : ''}`);
    }
  });
  const relations: Relation[] = [];
  let typed = 0;
  pairs.forEach((p, i) => {
    const d = decided.get(i);
    if (!d || d.type === 'none') {
      if (!opts.dropUntyped) relations.push(similar(p));
      return;
    }
    typed++;
    const [from, to] = d.reversed ? [points[p.b].id, points[p.a].id] : [points[p.a].id, points[p.b].id];
    relations.push({ from, to, type: d.type, weight: round(p.similarity), by: 'llm' });
  });
  return { relations, issues, usage, recalled: pairs.length, typed, by: 'llm' };
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/**
 * Fragment-level edges for the engine's one-hop expansion. Per unordered pair of
 * fragments one edge: the strongest point edge, a typed edge preferred over
 * 'similar' when both exist; the direction of that point edge is kept. Sorted.
 */
export function projectToFragments(relations: readonly Relation[], points: readonly KnowledgePoint[]): Relation[] {
  const fragOf = new Map(points.map((p) => [p.id, p.fragmentId]));
  const best = new Map<string, Relation>();
  for (const r of relations) {
    const fa = fragOf.get(r.from);
    const fb = fragOf.get(r.to);
    if (!fa || !fb || fa === fb) continue;
    const key = fa < fb ? `${fa}\u0000${fb}` : `${fb}\u0000${fa}`;
    const cand: Relation = { from: fa, to: fb, type: r.type, weight: r.weight, by: r.by };
    const prev = best.get(key);
    const rank = (x: Relation) => (x.type === 'similar' ? 0 : 1);
    if (!prev || rank(cand) > rank(prev) || (rank(cand) === rank(prev) && cand.weight > prev.weight)) best.set(key, cand);
  }
  return [...best.values()].sort((x, y) => (x.from < y.from ? -1 : x.from > y.from ? 1 : x.to < y.to ? -1 : x.to > y.to ? 1 : 0));
}

/** Recall, type and project in one call. */
export async function buildRelations(
  points: readonly KnowledgePoint[],
  vectors: readonly Float32Array[],
  opts: RelationOptions & { model?: ChatModel; cache?: RelationTypeCache } = {},
): Promise<RelationResult & { fragmentEdges: Relation[] }> {
  const pairs = recallPairs(points, vectors, opts);
  const res = await typeRelations(points, pairs, opts);
  return { ...res, fragmentEdges: projectToFragments(res.relations, points) };
}
