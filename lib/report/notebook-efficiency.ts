/**
 * Cost figures that come from the index rather than from runs: the latency of
 * one retrieval round as the corpus grows (the demo presets tiny -> default ->
 * scale; the paper: 0.12 s per round at 200K fragments, +7% for 42x corpus),
 * and the one-time index construction cost from each index's cost ledger
 * (Appendix D: tokens, embeddings, OCR pages, wall clock).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stateDir } from '../util/paths';
import { demoIndexDir as benchDemoIndexDir } from '../bench/benchmarks/demo';
import { ensureDemoWorld } from '../demo';
import { ensureIndex } from '../index/build';
import { openIndex } from '../index/open';
import { loadBenchmark } from '../bench/registry';
import { percentile } from '../run/aggregate';
import type { SearchTimings } from '../index/types';
import type { Row } from './table';
import type { DemoPreset } from './notebook-runs';

const r2 = (x: number | null): number | null => (x === null || !Number.isFinite(x) ? null : Math.round(x * 100) / 100);

/** The demo index folder of a preset (shared with the demo experiments and notebooks). */
export function demoIndexDir(preset: string): string {
  return benchDemoIndexDir(preset);
}

/**
 * Search the first `queries` questions of a demo preset once each and report
 * the per-round latency: p50/p90 of the round (without the query embedding) and
 * the mean of each stage. Builds the world and index when missing (the scale
 * preset takes a while: a parameter of the notebook, off on the tiny run).
 */
export async function corpusScaleLatency(preset: DemoPreset | 'scale', opts: { queries?: number; mode?: 'hybrid' | 'hybrid+graph' } = {}): Promise<Row> {
  const world = await ensureDemoWorld({ preset });
  const ensured = await ensureIndex({ corpusDir: path.join(world.dir, 'corpus'), outDir: demoIndexDir(preset), embedder: 'fitted' });
  const idx = await openIndex(ensured.dir);
  const bench = loadBenchmark('demo', { questions: path.join(world.dir, 'questions.json'), corpus: path.join(world.dir, 'corpus') });
  const qs = bench.questions.slice(0, opts.queries ?? 30);
  const rounds: number[] = [];
  const stage: Partial<Record<keyof SearchTimings, number>> = {};
  // One warm-up search: the first one pays for lazily loaded structures.
  if (qs.length) await idx.retriever.search(qs[0].question, { mode: opts.mode ?? 'hybrid+graph', topk: 8 });
  for (const q of qs) {
    const r = await idx.retriever.search(q.question, { mode: opts.mode ?? 'hybrid+graph', topk: 8 });
    rounds.push(r.timings.roundMs + r.timings.embedMs);
    for (const [k, v] of Object.entries(r.timings) as [keyof SearchTimings, number][]) stage[k] = (stage[k] ?? 0) + v;
  }
  const n = Math.max(1, qs.length);
  const row: Row = {
    preset,
    documents: idx.manifest.counts.documents,
    fragments: idx.manifest.counts.fragments,
    queries: qs.length,
    p50Ms: r2(percentile(rounds, 0.5)),
    p90Ms: r2(percentile(rounds, 0.9)),
  };
  for (const k of ['embedMs', 'bm25Ms', 'hnswMs', 'fusionMs', 'expansionMs', 'contextMs'] as const) row[k] = r2((stage[k] ?? 0) / n);
  return row;
}

interface LedgerTokens {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  total: number;
}
interface CostLedger {
  corpus?: string;
  backends?: Record<string, string>;
  index?: {
    documents: number;
    sourceBytes: number;
    markdownChars: number;
    images: number;
    ocrPages: number;
    pages?: number;
    fragments?: number;
    points?: number;
    embeddings: number;
    tokens: { preprocessing: LedgerTokens; extractionText: LedgerTokens; extractionMultimodal: LedgerTokens; total: LedgerTokens };
    wallSeconds: number;
  };
}

/** One row of index construction cost from an index folder's cost-ledger.json (null when the index has none). */
export function indexCostRow(dir: string, label?: string): Row | null {
  const file = path.join(dir, 'cost-ledger.json');
  if (!fs.existsSync(file)) return null;
  let l: CostLedger;
  try {
    l = JSON.parse(fs.readFileSync(file, 'utf8')) as CostLedger;
  } catch {
    return null;
  }
  const i = l.index;
  if (!i) return null;
  const offline = Object.values(l.backends ?? {}).every((b) => b === 'offline');
  return {
    corpus: label ?? l.corpus ?? path.basename(dir),
    source: 'this harness',
    documents: i.documents,
    markdownChars: i.markdownChars,
    images: i.images,
    ocrPages: i.ocrPages,
    embeddings: i.embeddings,
    preprocessingTokens: i.tokens.preprocessing.total,
    extractionTokensText: i.tokens.extractionText.total,
    extractionTokensMultimodal: i.tokens.extractionMultimodal.total,
    totalTokens: i.tokens.total.total,
    wallSeconds: Math.round(i.wallSeconds * 10) / 10,
    backend: offline ? 'offline (token counts are the offline estimate, not model usage)' : Object.values(l.backends ?? {}).join('/'),
  };
}

/** Index folders that exist here: the demo presets and content-addressed benchmark indexes. */
export function knownIndexDirs(): { label: string; dir: string }[] {
  const out: { label: string; dir: string }[] = [];
  const demoRoot = stateDir('index');
  const casRoot = stateDir('indexes');
  for (const [root, prefix] of [
    [demoRoot, ''],
    [casRoot, ''],
  ] as const) {
    if (!fs.existsSync(root)) continue;
    for (const name of fs.readdirSync(root).sort()) {
      const dir = path.join(root, name);
      if (fs.existsSync(path.join(dir, 'cost-ledger.json'))) out.push({ label: `${prefix}${name}`, dir });
    }
  }
  return out;
}
