/**
 * Retrieval side by side on the same questions: other systems' RECORDED
 * retrievals (../shared/bench/text-multihop/peers/: vectordb, lightrag,
 * nano-graphrag, fast-graphrag on the 2Wiki dev questions, each a list of
 * retrieved titles) and every retriever of this harness (the engine's four
 * modes plus every retriever the loaded plug-ins register; the plug-ins' own
 * notebook series are listed by notebook-series.ts) searched live on the same
 * questions over the same corpus.
 *
 * Everyone is scored the same way, model-free, at document level: R@k = share
 * of a question's gold titles among the first k DISTINCT documents retrieved;
 * allFound@k = 1 when all are. Peers recorded about 8 titles per question, so
 * k stops at 8. Questions are matched by their text (the peers' files carry no
 * ids).
 */
import { recallAtK } from '../eval/recall';
import { loadPlugins } from '../pipeline/plugins';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { benchDir } from '../util/paths';
import { KfError, errorMessage } from '../util/errors';
import { loadBenchmark } from '../bench/registry';
import type { BenchmarkData } from '../bench/types';
import { ensureIndex } from '../index/build';
import { openIndex, type OpenIndex } from '../index/open';
import { EngineKnowledgeBase, type ModeRetriever } from '../pipeline/engine-knowledge-base';
import { getRetriever, retrieverNames } from '../pipeline/retrievers';
import type { RankedEvidence } from '../pipeline/ranked-evidence';
import { comparePaired, type PairedComparison } from '../eval/stats';
import type { Row } from './table';
import { RETRIEVAL_MODES } from '../index/types';

/** The engine's own modes (one table: lib/index/types.ts). */
export const ENGINE_MODES = RETRIEVAL_MODES;

/** One system's ranked documents per question text. */
export interface SystemRetrieval {
  /** The row label: the retriever's name plus, for retrievers with variants, the variant that ranked. */
  system: string;
  /** The retriever's short name (a plain file name, for tables and figures named after it). */
  name: string;
  /** 'recorded' = a peer's file; 'harness' = searched now. */
  kind: 'recorded' | 'harness';
  ranked: Map<string, string[]>;
  /** Mean search time per question (harness retrievers only). */
  msPerQuery?: number;
  /** Mean milliseconds per named stage of the retriever (RankedEvidence.timings). */
  stageMs?: Record<string, number>;
  /** What the retriever added beyond its ranking, per question (RankedEvidence.extra: DualG-MRAG's decoded paths), where it added anything. */
  extras?: Map<string, NonNullable<RankedEvidence['extra']>>;
  note?: string;
}

/** A retriever to search with: a mode name (engine or registered) and, for registered ones, its settings. */
export interface RetrieverSpec {
  label: string;
  mode: string;
  settings?: Record<string, unknown>;
}

export function peersDir(): string {
  return benchDir('text-multihop', 'peers');
}

/** The 2Wiki dev questions and corpus from ../shared/bench, or null when absent. */
export function load2WikiShared(): BenchmarkData | null {
  const q = benchDir('text-multihop', '2wiki_questions.dev.json');
  const c = benchDir('text-multihop', '2wiki_corpus.json');
  if (!fs.existsSync(q) || !fs.existsSync(c)) return null;
  return loadBenchmark('2wiki', { questions: q, corpus: c });
}

/** Every peer file `<system>.2wiki_dev.json` of the folder (sorted by system). */
export function loadPeerRetrievals(dir = peersDir()): SystemRetrieval[] {
  if (!fs.existsSync(dir)) return [];
  const out: SystemRetrieval[] = [];
  for (const f of fs
    .readdirSync(dir)
    .filter((x) => x.endsWith('.2wiki_dev.json'))
    .sort()) {
    const file = path.join(dir, f);
    let rows: { question?: unknown; evidence?: unknown }[];
    try {
      rows = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof rows;
    } catch (e) {
      throw new KfError('bad_peer_file', `peer retrieval file ${file} does not parse: ${errorMessage(e)}`, 'restore the file from ../shared/bench', {
        concerns: file,
      });
    }
    if (!Array.isArray(rows))
      throw new KfError('bad_peer_file', `peer retrieval file ${file} is not a list`, 'restore the file from ../shared/bench', { concerns: file });
    const ranked = new Map<string, string[]>();
    for (const r of rows) {
      if (typeof r.question === 'string' && Array.isArray(r.evidence))
        ranked.set(
          r.question,
          r.evidence.filter((x): x is string => typeof x === 'string'),
        );
    }
    const name = f.replace(/\.2wiki_dev\.json$/, '');
    out.push({ system: name, name, kind: 'recorded', ranked });
  }
  return out;
}

/** Load the plug-ins, whose manifests register the retrievers (lib/pipeline/plugins.ts). */
export function loadRetrieverModules(): void {
  loadPlugins();
}

/** The harness's retrievers: the engine's modes and every registered retriever. */
export function harnessRetrieverNames(): string[] {
  loadRetrieverModules();
  return [...ENGINE_MODES, ...retrieverNames().filter((n) => !(ENGINE_MODES as readonly string[]).includes(n))];
}

/** The passages index of a benchmark (built offline once, then reused from .kf-cache/indexes). */
export async function passagesIndex(data: BenchmarkData): Promise<OpenIndex> {
  if (!data.passages) throw new KfError('no_passages', `benchmark ${data.name} has no passages corpus loaded`, 'load it with its corpus file');
  const ensured = await ensureIndex({ passages: data.passages, embedder: 'fitted', options: { benchmark: data.name } });
  return openIndex(ensured.dir);
}

/** A knowledge base over the index whose extra modes are the registered retrievers, created with `settings`. */
function knowledgeBase(idx: OpenIndex, settings: Record<string, unknown>, log: (line: string) => void): EngineKnowledgeBase {
  const extraModes: Record<string, ModeRetriever> = {};
  const holder: { kb?: EngineKnowledgeBase } = {};
  for (const name of retrieverNames()) {
    let made: Promise<ModeRetriever> | undefined;
    extraModes[name] = async (query, opts, view) => {
      made ??= getRetriever(name)!.create({ kb: holder.kb!, indexDir: idx.dir, settings, log });
      return (await made)(query, opts, view);
    };
  }
  holder.kb = new EngineKnowledgeBase(idx.engine, { id: `${idx.dir}#${idx.manifest.generation}`, docTitle: (id) => idx.docTitle(id), extraModes });
  return holder.kb;
}

/**
 * Search every question with each retriever (names, or specs with settings);
 * a retriever that fails is reported with its error as the note and no rankings.
 */
export async function harnessRetrievals(
  idx: OpenIndex,
  questions: string[],
  retrievers: (string | RetrieverSpec)[],
  opts: { k?: number; log?: (line: string) => void } = {},
): Promise<SystemRetrieval[]> {
  const k = opts.k ?? 8;
  const log = opts.log ?? (() => {});
  const out: SystemRetrieval[] = [];
  for (const r0 of retrievers) {
    const spec: RetrieverSpec = typeof r0 === 'string' ? { label: r0, mode: r0 } : r0;
    const kb = knowledgeBase(idx, spec.settings ?? {}, log);
    const ranked = new Map<string, string[]>();
    const extras = new Map<string, NonNullable<RankedEvidence['extra']>>();
    const stage: Record<string, number> = {};
    let ms = 0;
    // A retriever with variants (DualG's scorer and checkpoint) names the one that ranked; the row says it.
    let system: string | undefined;
    try {
      for (const q of questions) {
        const t0 = performance.now();
        // Ask for more fragments than k: several fragments may share a document.
        const r = await kb.search(q, { mode: spec.mode, k: Math.max(k * 3, 24) });
        ms += performance.now() - t0;
        ranked.set(
          q,
          r.docs.map((d) => d.docId),
        );
        if (r.extra && Object.keys(r.extra).length) extras.set(q, r.extra);
        system ??= r.system?.label;
        for (const [name, v] of Object.entries(r.timings ?? {})) if (typeof v === 'number' && Number.isFinite(v)) stage[name] = (stage[name] ?? 0) + v;
      }
      const n = Math.max(1, questions.length);
      const stageMs = Object.fromEntries(Object.entries(stage).map(([name, v]) => [name, v / n]));
      out.push({
        system: system ? `${spec.label} [${system}]` : spec.label,
        name: spec.label,
        kind: 'harness',
        ranked,
        msPerQuery: questions.length ? ms / questions.length : undefined,
        stageMs,
        ...(extras.size ? { extras } : {}),
      });
    } catch (e) {
      out.push({ system: spec.label, name: spec.label, kind: 'harness', ranked: new Map(), note: `failed: ${errorMessage(e)}` });
    }
  }
  return out;
}

/** A p-value as text that keeps its size (0.0 would hide 1e-10): 4 decimals, or 3 significant digits below 1e-4. */
export function formatP(p: number): string {
  if (!Number.isFinite(p)) return String(p);
  return p < 1e-4 ? p.toExponential(2) : p.toFixed(4);
}

/** One row of a paired-comparison table (percentages with one decimal): the columns every notebook shows. */
export function pairedRow(
  a: string,
  b: string,
  metric: string,
  c: Pick<PairedComparison, 'n' | 'meanA' | 'meanB' | 'diff' | 'bootstrapCI' | 'won' | 'lost' | 'tied' | 'signTestP'>,
): Row {
  const pct = (x: number) => Math.round(x * 1000) / 10;
  return {
    A: a,
    B: b,
    metric,
    n: c.n,
    meanA: pct(c.meanA),
    meanB: pct(c.meanB),
    diff: pct(c.diff),
    ciLow: pct(c.bootstrapCI[0]),
    ciHigh: pct(c.bootstrapCI[1]),
    won: c.won,
    lost: c.lost,
    tied: c.tied,
    signTestP: formatP(c.signTestP),
  };
}

function distinct(xs: string[]): string[] {
  return [...new Set(xs)];
}

/**
 * R@k and allFound@k (x100) per system over the questions with gold titles that
 * every system answered; `n` says how many that was.
 */
export function recallTable(systems: SystemRetrieval[], gold: Map<string, string[]>, ks: number[] = [2, 5, 8], opts: { times?: boolean } = {}): Row[] {
  const usable = systems.filter((s) => s.ranked.size);
  const common = [...gold.keys()].filter((q) => gold.get(q)!.length && usable.every((s) => s.ranked.has(q)));
  return systems.map((s) => {
    const row: Row = {
      system: s.system,
      source: s.kind === 'recorded' ? 'recorded (peer file)' : 'this harness (live search)',
      n: s.ranked.size ? common.length : 0,
    };
    for (const k of ks) {
      let r = 0,
        all = 0;
      for (const q of common) {
        // common holds questions with gold only, so there is a figure.
        const sc = recallAtK(distinct(s.ranked.get(q) ?? []), gold.get(q)!, [k])!;
        r += sc[`R@${k}`];
        all += sc[`allFound@${k}`];
      }
      row[`R@${k}`] = s.ranked.size && common.length ? Math.round((1000 * r) / common.length) / 10 : null;
      row[`allFound@${k}`] = s.ranked.size && common.length ? Math.round((1000 * all) / common.length) / 10 : null;
    }
    // Times differ between runs: only when asked (a recall table must be identical on a rerun).
    if (opts.times) row.msPerQuery = s.msPerQuery === undefined ? null : Math.round(s.msPerQuery * 10) / 10;
    row.note = s.note ?? '';
    return row;
  });
}

/** Per question: which systems found all gold titles in their first k (for the flip table). */
export function perQuestionFound(systems: SystemRetrieval[], gold: Map<string, string[]>, k = 8): Row[] {
  const rows: Row[] = [];
  for (const [q, g] of gold) {
    if (!g.length) continue;
    const row: Row = { question: q, gold: g.join(' | ') };
    for (const s of systems) {
      if (!s.ranked.has(q)) {
        row[s.system] = null;
        continue;
      }
      const top = new Set(distinct(s.ranked.get(q)!).slice(0, k));
      row[s.system] = g.every((t) => top.has(t)) ? 1 : 0;
    }
    rows.push(row);
  }
  return rows;
}

/**
 * Paired comparison of two systems on allFound@k per question (1/0): flips
 * won:lost:tied, exact sign test, 95% paired bootstrap CI (the same statistics
 * as kf compare), x100.
 */
export function pairedFound(
  systems: SystemRetrieval[],
  gold: Map<string, string[]>,
  pairs: [string, string][],
  opts: { k?: number; seed?: string | number; resamples?: number } = {},
): Row[] {
  const k = opts.k ?? 8;
  const found = (s: SystemRetrieval): Map<string, number> => {
    const m = new Map<string, number>();
    for (const [q, g] of gold) {
      if (!g.length || !s.ranked.has(q)) continue;
      const top = new Set(distinct(s.ranked.get(q)!).slice(0, k));
      m.set(q, g.every((t) => top.has(t)) ? 1 : 0);
    }
    return m;
  };
  const bySystem = new Map(systems.map((s) => [s.system, s] as const));
  const rows: Row[] = [];
  for (const [a, b] of pairs) {
    const sa = bySystem.get(a),
      sb = bySystem.get(b);
    if (!sa?.ranked.size || !sb?.ranked.size) continue;
    const c = comparePaired(found(sa), found(sb), { margin: 0, seed: opts.seed ?? 0, resamples: opts.resamples ?? 2000 });
    rows.push(pairedRow(a, b, `allFound@${k}`, c));
  }
  return rows;
}
