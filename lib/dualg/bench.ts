/**
 * DualG speed bench (issue 11 "Speed"; `kf bench dualg`, lib/dualg/scripts/bench.ts):
 * the offline graph build time of a corpus (bench-corpus.ts: a demo preset or a
 * benchmark's index), and the latency of whole searches (linking, micro
 * matching, graph scorer, path decoding, the hybrid pool) over a seeded sample
 * of its questions: p50/p90 and per-stage times, the paper's micro/macro share
 * (micro = matching, macro = linking + scorer + paths; the hybrid pool listed
 * apart), peak RSS and the machine's load average while it ran (a benchmark on
 * a shared machine says how busy the machine was).
 *
 * Scorers, named as the retrievers (lib/dualg/retriever.ts): 'dualg' (the
 * shipped default, the untrained graph heuristic), 'ppr', 'gnn-untrained' (a GNN
 * of the default size with its initial weights: latency only, its ranking means
 * nothing) and 'dualg-gnn' (the trained checkpoint for this graph, when one
 * exists; otherwise skipped with a note).
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as fs from 'node:fs';
import type { KnowledgeBase } from '../pipeline/knowledge-base';
import { KfError } from '../util/errors';
import { shortHash } from '../util/hash';
import { percentile } from '../util/percentile';
import { makeRng } from '../util/rng';
import type { BenchCorpus } from './bench-corpus';
import { buildDualGraph, DUALG_GRAPH_VERSION } from './graph/build';
import { loadGraph, saveGraph } from './graph/store';
import { toGnnGraph } from './graph/to-gnn';
import type { DualGraph } from './graph/types';
import { searcherParts } from './retriever';
import { searcherSettings } from './query/searcher-settings';
import { gnnScorerFactory } from './query/gnn-factory';
import type { GnnScorer } from './query/scorer';
import { DualgSearcher, type ScorerName, type SearcherParts } from './query/searcher';

export const BENCH_SCORERS = ['dualg', 'ppr', 'gnn-untrained', 'dualg-gnn'] as const;
export type BenchScorer = (typeof BENCH_SCORERS)[number];

export interface DualgBenchOptions {
  /** Timed searches per scorer (the questions in a seeded order, cycled when fewer). */
  queries?: number;
  scorers?: BenchScorer[];
  seed?: string;
  /** Untimed searches before each scorer's timing (JIT, lazy postings). */
  warmup?: number;
  /** Keep the built graph here and load it next time (the build time reported is then the recorded one). */
  cacheDir?: string;
  progress?: (line: string) => void;
}

export interface StageStats {
  p50: number;
  p90: number;
  mean: number;
}

export interface ScorerReport {
  scorer: BenchScorer;
  /** Why it did not run (e.g. no trained checkpoint for this graph). */
  skipped?: string;
  queries: number;
  /** Searches the graph ranked (the rest fell back to the hybrid: nothing or only common entities linked). */
  graphRanked: number;
  latencyMs: StageStats;
  /** Per stage over all timed searches (0 where a search skipped the stage). */
  stagesMs: Record<string, StageStats>;
  /** Of the summed search time; `other` = fusion, ranking and seed merging (outside the named stages). */
  sharePercent: { micro: number; macro: number; hybridPool: number; other: number };
  loadAvg1m: number;
  notes?: string[];
}

export interface DualgBenchReport {
  corpus: { label: string; documents: number; fragments: number; questions: number };
  build: Record<string, number | boolean>;
  graph: DualGraph['meta']['stats'];
  scorers: ScorerReport[];
  peakRssMB: number;
  loadAvg: { start: number[]; end: number[] };
  machine: { cpus: number; memoryGB: number; node: string };
  backend: 'offline';
}

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const secondsSince = (t: number) => round((performance.now() - t) / 1000);

function stats(xs: number[]): StageStats {
  const mean = xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
  return { p50: round(percentile(xs, 0.5) ?? NaN), p90: round(percentile(xs, 0.9) ?? NaN), mean: round(mean) };
}

/** The corpus's graph: built (timed), or loaded from the cache folder when one was built there for the same source. */
async function prepareGraph(corpus: BenchCorpus, o: DualgBenchOptions): Promise<{ g: DualGraph; build: Record<string, number | boolean> }> {
  const key = shortHash({ v: DUALG_GRAPH_VERSION, id: corpus.source.id, fp: corpus.source.fingerprint });
  const dir = o.cacheDir ? path.join(path.resolve(o.cacheDir), `graph-${key}`) : undefined;
  if (dir && fs.existsSync(path.join(dir, 'manifest.json'))) {
    const t = performance.now();
    const g = loadGraph(dir, { fingerprint: corpus.source.fingerprint });
    o.progress?.(`graph loaded from ${dir}`);
    return { g, build: { graphFromCache: true, graphLoadS: secondsSince(t), graphS: round((g.meta.stats.buildMs ?? 0) / 1000) } };
  }
  const t = performance.now();
  const g = await buildDualGraph(corpus.source, { log: o.progress });
  const graphS = secondsSince(t);
  o.progress?.(`graph built in ${graphS} s: ${JSON.stringify(g.meta.stats)}`);
  if (dir) saveGraph(dir, g);
  return { g, build: { graphFromCache: false, graphS } };
}

/** Records the GNN scorer's own split (message passing vs path decoding) of the last call. */
interface PathClock {
  pathsMs: number;
}

function clocked(scorer: GnnScorer, clock: PathClock): GnnScorer {
  return (graph, query) => {
    const out = scorer(graph, query) as Awaited<ReturnType<GnnScorer>> & { timings?: { pathsMs?: number } };
    clock.pathsMs = out.timings?.pathsMs ?? 0;
    return out;
  };
}

/** The GNN parts of a scorer; undefined (with the reason) when there is no trained checkpoint. */
async function gnnParts(
  which: 'gnn-untrained' | 'dualg-gnn',
  g: DualGraph,
  corpus: BenchCorpus,
  clock: PathClock,
  log?: (line: string) => void,
): Promise<{ parts?: SearcherParts['gnn']; skipped?: string }> {
  // Loaded only when a GNN scorer is asked for: TensorFlow.js takes seconds to start.
  const gnn = require('./gnn') as typeof import('./gnn');
  const tfInfo = await (require('../tf/backend') as typeof import('../tf/backend')).initTf();
  log?.(`${which}: TensorFlow.js backend ${tfInfo.backend}`);
  const graph = toGnnGraph(g);
  if (which === 'gnn-untrained') {
    const { queryInputDim } = require('./gnn/query-encoder') as typeof import('./gnn/query-encoder');
    const inputDim = queryInputDim(gnn.DEFAULT_GNN_CONFIG.queryEncoder ?? 'hashed');
    const model = new gnn.GnnModel(gnn.gnnConfig({ inputDim, numRelations: graph.numRelations }));
    log?.(
      `gnn-untrained: ${model.config.layers} layers x ${model.config.hidden}, prior ${model.config.prior}, query encoder ${model.config.queryEncoder}, at most ${model.config.maxActiveEdges} active edges`,
    );
    return { parts: { graph, scorer: clocked(gnn.makeGnnScorer(model, { paths: 5 }), clock) } };
  }
  const factory = gnnScorerFactory();
  const trained = factory ? await factory({ graph, graphFingerprint: g.meta.source.fingerprint, indexDir: corpus.indexDir, settings: {}, log }) : undefined;
  if (!trained) return { skipped: 'no trained GNN checkpoint for this graph' };
  return { parts: { graph, scorer: clocked(trained.scorer, clock), checkpoint: trained.checkpoint } };
}

/** The queries to time: the corpus's questions in a seeded order, cycled to `n`. */
export function benchQueries(questions: string[], n: number, seed: string): string[] {
  if (!questions.length) throw new KfError('bench_no_questions', 'the bench corpus has no questions to time', 'use a preset or benchmark with questions');
  const pool = makeRng(`${seed}/dualg-bench`).shuffle(questions.slice());
  return Array.from({ length: n }, (_, i) => pool[i % pool.length]);
}

/** Time one scorer's searches; the searcher's `gnn` stage is split into scorer and paths when the GNN reports them. */
async function timeSearches(searcher: DualgSearcher, queries: string[], kb: KnowledgeBase, clock: PathClock, warmup: number) {
  for (const q of queries.slice(0, warmup)) await searcher.search(q, { k: 8 }, kb);
  const stages: Record<string, number[]> = { linking: [], matching: [], scorer: [], paths: [], hybrid: [] };
  const total: number[] = [];
  let graphRanked = 0;
  const notes = new Map<string, number>();
  for (const q of queries) {
    clock.pathsMs = 0;
    const r = await searcher.search(q, { k: 8 }, kb);
    const t = r.timings;
    const ranked = t.gnn !== undefined;
    if (ranked) graphRanked++;
    const paths = ranked ? clock.pathsMs : 0;
    stages.linking.push(t.linking ?? 0);
    stages.matching.push(t.matching ?? 0);
    stages.scorer.push((t.gnn ?? 0) - paths);
    stages.paths.push(paths);
    stages.hybrid.push(t.hybrid ?? 0);
    total.push(t.totalMs);
    for (const n of r.notes ?? []) notes.set(n, (notes.get(n) ?? 0) + 1);
  }
  return { stages, total, graphRanked, notes: [...notes.entries()].map(([n, c]) => `${c} x ${n}`) };
}

async function benchScorer(which: BenchScorer, g: DualGraph, corpus: BenchCorpus, queries: string[], o: DualgBenchOptions): Promise<ScorerReport> {
  const clock: PathClock = { pathsMs: 0 };
  const parts = searcherParts(g);
  const scorerName: ScorerName = which === 'dualg' ? 'heuristic' : which === 'ppr' ? 'ppr' : 'gnn';
  if (scorerName === 'gnn') {
    const got = await gnnParts(which as 'gnn-untrained' | 'dualg-gnn', g, corpus, clock, o.progress);
    if (!got.parts) {
      const none = stats([]);
      return {
        scorer: which,
        skipped: got.skipped,
        queries: 0,
        graphRanked: 0,
        latencyMs: none,
        stagesMs: {},
        sharePercent: { micro: 0, macro: 0, hybridPool: 0, other: 0 },
        loadAvg1m: round(os.loadavg()[0]),
      };
    }
    parts.gnn = got.parts;
  }
  const searcher = new DualgSearcher(parts, searcherSettings({}, scorerName), which);
  const r = await timeSearches(searcher, queries, corpus.kb, clock, o.warmup ?? 5);
  const all = r.total.reduce((a, b) => a + b, 0) || 1;
  const sum = (keys: string[]) => keys.reduce((a, k) => a + r.stages[k].reduce((x, y) => x + y, 0), 0);
  const report: ScorerReport = {
    scorer: which,
    queries: queries.length,
    graphRanked: r.graphRanked,
    latencyMs: stats(r.total),
    stagesMs: Object.fromEntries(Object.entries(r.stages).map(([k, v]) => [k, stats(v)])),
    sharePercent: {
      micro: round((100 * sum(['matching'])) / all, 1),
      macro: round((100 * sum(['linking', 'scorer', 'paths'])) / all, 1),
      hybridPool: round((100 * sum(['hybrid'])) / all, 1),
      other: round(100 - (100 * sum(['matching', 'linking', 'scorer', 'paths', 'hybrid'])) / all, 1),
    },
    loadAvg1m: round(os.loadavg()[0]),
    ...(r.notes.length ? { notes: r.notes } : {}),
  };
  o.progress?.(
    `${which}: p50 ${report.latencyMs.p50} ms, p90 ${report.latencyMs.p90} ms (${report.graphRanked}/${report.queries} graph-ranked; load ${report.loadAvg1m})`,
  );
  return report;
}

export async function benchDualg(corpus: BenchCorpus, o: DualgBenchOptions = {}): Promise<DualgBenchReport> {
  const n = o.queries ?? 200;
  if (!Number.isInteger(n) || n < 1) throw new KfError('bad_option', `queries must be a positive integer (got ${n})`, 'pass e.g. --queries 200');
  const start = os.loadavg().map((x) => round(x));
  const { g, build } = await prepareGraph(corpus, o);
  const queries = benchQueries(corpus.questions, n, o.seed ?? 'kf-bench');
  const scorers: ScorerReport[] = [];
  for (const s of o.scorers ?? ['dualg']) scorers.push(await benchScorer(s, g, corpus, queries, o));
  return {
    corpus: { label: corpus.label, documents: corpus.documents, fragments: corpus.fragments, questions: corpus.questions.length },
    build: { ...corpus.build, ...build },
    graph: g.meta.stats,
    scorers,
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    loadAvg: { start, end: os.loadavg().map((x) => round(x)) },
    machine: { cpus: os.cpus().length, memoryGB: round(os.totalmem() / 2 ** 30, 1), node: process.version },
    backend: 'offline',
  };
}

/** The report as a few readable lines (what the CLI prints without --json). */
export function formatDualgBench(r: DualgBenchReport): string {
  const c = r.corpus;
  const lines = [
    `DualG speed bench (offline) on ${c.label}: ${c.documents} documents, ${c.fragments} fragments, ${c.questions} questions`,
    `  build: ${Object.entries(r.build)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `  graph: ${Object.entries(r.graph)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  ];
  for (const s of r.scorers) {
    if (s.skipped) {
      lines.push(`  ${s.scorer}: skipped (${s.skipped})`);
      continue;
    }
    lines.push(
      `  ${s.scorer}: ${s.queries} searches (${s.graphRanked} graph-ranked), p50 ${s.latencyMs.p50} ms, p90 ${s.latencyMs.p90} ms, mean ${s.latencyMs.mean} ms`,
    );
    lines.push(
      `    stage p50/p90/mean ms: ${Object.entries(s.stagesMs)
        .map(([k, v]) => `${k} ${v.p50}/${v.p90}/${v.mean}`)
        .join(', ')}`,
    );
    lines.push(
      `    share: micro ${s.sharePercent.micro}%, macro ${s.sharePercent.macro}%, hybrid pool ${s.sharePercent.hybridPool}%, other ${s.sharePercent.other}%; load (1 min) ${s.loadAvg1m}`,
    );
  }
  lines.push(
    `  peak RSS ${r.peakRssMB} MB; load average start ${r.loadAvg.start.join(' ')}, end ${r.loadAvg.end.join(' ')}; ${r.machine.cpus} CPUs, node ${r.machine.node}`,
  );
  return lines.join('\n');
}
