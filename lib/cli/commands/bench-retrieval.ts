/**
 * `kf bench retrieval`: time one retrieval round (BM25 + HNSW + fusion +
 * expansion + context, query embedding excluded) on the demo world scaled to N
 * fragments; sweep sizes to see the growth. A benchmark, not a test.
 */
import * as path from 'node:path';
import type { CommandSpec } from '../command';
import { bool, int, str } from '../command';
import { benchRetrieval } from '../../index/benchmark';
import { formatBenchReport } from '../../index/bench-format';
import { OFFLINE_EMBEDDERS, type OfflineEmbedderName } from '../../index/embedders/registry';
import { RETRIEVAL_MODES, type RetrievalMode } from '../../index/types';
import { KfError } from '../../util/errors';
import { gitInfo } from '../../util/git';
import { writeJsonAtomic, ensureWritableDir } from '../../util/fsx';
import { lineFigure, writeFigure, type FigureSpec } from '../../report/figure';
import type { RetrievalBenchReport } from '../../index/benchmark';

const sizeList = (v: string) =>
  /^\s*[1-9]\d*(\s*,\s*[1-9]\d*)*\s*$/.test(v) ? undefined : `expected a positive integer or a comma-separated list (e.g. 4800,200000), got "${v}"`;
const posInt = (v: string) => (/^[1-9]\d*$/.test(v) ? undefined : `expected a positive integer, got "${v}"`);
const nonNegInt = (v: string) => (/^\d+$/.test(v) ? undefined : `expected a non-negative integer, got "${v}"`);

export const command: CommandSpec = {
  name: 'bench retrieval',
  group: 'dev',
  summary: 'Time a retrieval round (BM25+HNSW+fusion+expansion+context) on the demo world scaled to N fragments; HNSW recall, memory, growth',
  options: {
    fragments: { type: 'string', required: true, description: 'corpus size(s): N or a sweep N1,N2,...', validate: sizeList },
    queries: { type: 'string', default: '300', description: 'timed queries per size', validate: posInt },
    seed: { type: 'string', default: 'kf-demo', description: 'demo world seed' },
    embedder: { type: 'string', default: 'corpus-fitted', choices: OFFLINE_EMBEDDERS, description: 'offline dense encoder' },
    mode: { type: 'string', default: 'hybrid+graph', choices: RETRIEVAL_MODES, description: 'retrieval mode timed' },
    topk: { type: 'string', default: '8', description: 'hits per search', validate: posInt },
    'edges-k': { type: 'string', default: '3', description: 'kNN similarity edges per fragment for expansion (0 = none)', validate: nonNegInt },
    'ef-search': {
      type: 'string',
      description: 'HNSW efSearch (default: automatic by corpus size, 128 up to 51.2K fragments, 256 above)',
      validate: posInt,
    },
    m: { type: 'string', description: 'HNSW M, graph degree (default: the engine default)', validate: posInt },
    'ef-construction': { type: 'string', description: 'HNSW efConstruction (default: the engine default)', validate: posInt },
    'edges-method': {
      type: 'string',
      default: 'graph',
      choices: ['graph', 'search'],
      description: "similarity edges from the HNSW graph's own lists (graph) or one graph query per fragment (search, the older method)",
    },
    'compare-edges': { type: 'boolean', description: 'also run the other edge method on the same index and report the overlap' },
    'compare-edges-max': {
      type: 'string',
      description: "with --compare-edges: only at sizes up to N fragments ('search' costs one graph query per fragment)",
      validate: posInt,
    },
    'ef-sweep': {
      type: 'string',
      description: 'also measure pure HNSW recall@8 and search time at these efSearch values (e.g. 64,128,256,512,1024)',
      validate: sizeList,
    },
    out: { type: 'string', description: 'also write the JSON report to this file' },
    figure: { type: 'string', description: 'write the growth-curve figures (round time, build time per stage) into this folder' },
    cache: { type: 'string', description: 'keep built indexes in this folder and reuse them on the next run' },
    json: { type: 'boolean', description: 'print the report as JSON' },
  },
  examples: ['kf bench retrieval --fragments 4800,200000', 'kf bench retrieval --fragments 20000 --queries 100 --json'],
  async run(args) {
    const sizes = str(args, 'fragments')!
      .split(',')
      .map((s) => Number(s.trim()));
    if (sizes.some((s) => s > 2_000_000))
      throw new KfError('bad_option', `--fragments ${Math.max(...sizes)} is beyond what this machine can hold`, 'use at most 2,000,000 fragments');
    const hnsw: { efSearch?: number; M?: number; efConstruction?: number } = {};
    if (int(args, 'ef-search')) hnsw.efSearch = int(args, 'ef-search');
    if (int(args, 'm')) hnsw.M = int(args, 'm');
    if (int(args, 'ef-construction')) hnsw.efConstruction = int(args, 'ef-construction');
    // Check the output folder before minutes of building, not after.
    const outFile = str(args, 'out');
    if (outFile) ensureWritableDir(path.dirname(path.resolve(outFile)), 'folder of --out');
    const figureDir = str(args, 'figure');
    if (figureDir) ensureWritableDir(path.resolve(figureDir), '--figure folder');
    const report = await benchRetrieval({
      sizes,
      queries: int(args, 'queries'),
      seed: str(args, 'seed'),
      embedder: str(args, 'embedder') as OfflineEmbedderName,
      mode: str(args, 'mode') as RetrievalMode,
      topk: int(args, 'topk'),
      edgesK: int(args, 'edges-k'),
      edgesMethod: str(args, 'edges-method') as 'graph' | 'search',
      compareEdges: bool(args, 'compare-edges'),
      compareEdgesMax: int(args, 'compare-edges-max'),
      efSweep: str(args, 'ef-sweep')
        ?.split(',')
        .map((v) => Number(v.trim())),
      engine: Object.keys(hnsw).length ? { hnsw } : {},
      cacheDir: str(args, 'cache'),
      progress: (l) => process.stderr.write(l + '\n'),
    });
    const withMeta = { ...report, git: gitInfo(), backend: 'offline' };
    const out = str(args, 'out');
    if (out) writeJsonAtomic(out, withMeta);
    if (figureDir)
      for (const [name, spec] of Object.entries(benchFigures(report))) {
        const p = await writeFigure(spec, { dir: figureDir, name, warn: (l) => process.stderr.write(l + '\n') });
        process.stderr.write(`figure ${name}: ${p.png ?? p.html}\n`);
      }
    if (bool(args, 'json')) console.log(JSON.stringify(withMeta));
    else console.log(formatBenchReport(report));
  },
};

/** The growth curve as two figures: search round per stage, and build time per stage, over the corpus size. */
export function benchFigures(r: RetrievalBenchReport): Record<string, FigureSpec> {
  const x = r.curve.map((p) => p.fragments);
  const note = `offline (model-free) benchmark on the demo world scaled up; node ${r.node}`;
  const stage = (k: keyof (typeof r.sizes)[number]['stages']) => r.sizes.map((s) => s.stages[k].p50);
  const round = lineFigure({
    title: 'Retrieval round time by corpus size',
    xTitle: 'fragments (log scale)',
    yTitle: 'ms per round (p50)',
    note,
    caption: `mode ${r.config.mode}, ${r.config.queries} queries per size; round p90 ${r.curve.map((p) => p.roundP90Ms.toFixed(2)).join(', ')} ms; efSearch per size ${r.curve.map((p) => p.efSearch).join(', ')}; recall@8 vs exact: dense stage as searched ${r.curve.map((p) => p.denseStageRecallAt8.toFixed(3)).join(', ')}, pure HNSW graph ${r.curve.map((p) => p.hnswRecallAt8.toFixed(3)).join(', ')}`,
    x,
    logX: true,
    series: [
      { name: 'round p50', values: r.curve.map((p) => p.roundP50Ms) },
      { name: 'HNSW + widening p50', values: stage('hnswMs') },
      { name: 'BM25 p50', values: stage('bm25Ms') },
      { name: 'fusion + expansion + context p50', values: r.sizes.map((s) => s.stages.fusionMs.p50 + s.stages.expansionMs.p50 + s.stages.contextMs.p50) },
    ],
  });
  const sec = (ms: number | undefined) => (ms === undefined ? null : ms / 1000);
  const build = lineFigure({
    title: 'Index build time by corpus size',
    xTitle: 'fragments (log scale)',
    yTitle: 'seconds',
    note,
    caption: `peak RSS per size (MB): ${r.curve.map((p) => p.peakRssMB.toFixed(0)).join(', ')}; cached sizes show the figures recorded when built`,
    x,
    logX: true,
    series: [
      { name: 'total', values: r.sizes.map((s) => sec(s.build.totalMs)) },
      { name: 'fit + embed', values: r.sizes.map((s) => sec(s.build.fitMs + s.build.embedMs)) },
      { name: 'BM25', values: r.sizes.map((s) => sec(s.build.bm25Ms)) },
      { name: 'HNSW', values: r.sizes.map((s) => sec(s.build.hnswMs)) },
      { name: 'similarity edges', values: r.sizes.map((s) => sec(s.build.edgesMs)) },
    ],
  });
  return { 'bench-retrieval-round': round, 'bench-retrieval-build': build };
}
