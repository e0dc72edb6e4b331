/**
 * DualG speed bench (issue 11 "Speed"): the offline graph build time of a
 * benchmark's index, and retrieval latency per query (p50/p90 of the whole
 * search incl. linking, micro matching, graph scoring and the hybrid pool),
 * with the stage shares the paper reports (micro = matching, macro = linking +
 * graph scoring + paths; the hybrid pool listed apart).
 *
 *   node --import tsx scripts/dualg-bench.ts --bench 2wiki [--index DIR] [--retriever dualg-heuristic|ppr|dualg] [--repeat 3]
 * The index is the one `kf eval retrieval --bench <b> --offline` built (newest .kf-cache/indexes/<bench>-*), or --index.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { loadBench } from '../lib/run/retrieval-eval';
import { assertBenchmarkName } from '../lib/bench/names';
import { openIndex } from '../lib/index/open';
import { engineKnowledgeBase } from '../lib/run/index-provider';
import { percentile } from '../lib/util/percentile';
import { buildDualGraph } from '../lib/dualg/graph/build';
import { sourceFromIndexDir } from '../lib/dualg/graph/source';
import { searcherParts, searcherSettings } from '../lib/dualg/retriever';
import { DualgSearcher, type ScorerName } from '../lib/dualg/query/searcher';

function newestIndex(bench: string): string {
  const root = path.join(process.cwd(), '.kf-cache', 'indexes');
  const dirs = fs.existsSync(root) ? fs.readdirSync(root).filter((d) => d.startsWith(`${bench}-`)) : [];
  if (!dirs.length) throw new Error(`no index for ${bench} under ${root}: run kf eval retrieval --bench ${bench} --offline first, or pass --index`);
  return path.join(root, dirs.sort((a, b) => fs.statSync(path.join(root, b)).mtimeMs - fs.statSync(path.join(root, a)).mtimeMs)[0]);
}

const SCORERS: Record<string, ScorerName> = { 'dualg-heuristic': 'heuristic', ppr: 'ppr', dualg: 'gnn' };
const round = (x: number | null) => (x === null ? null : Math.round(x * 100) / 100);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      bench: { type: 'string' },
      index: { type: 'string' },
      retriever: { type: 'string', default: 'dualg-heuristic' },
      repeat: { type: 'string', default: '3' },
    },
  });
  const bench = assertBenchmarkName(values.bench ?? '2wiki', '--bench');
  const indexDir = values.index ?? newestIndex(bench);
  const scorer = SCORERS[values.retriever!];
  if (!scorer) throw new Error(`--retriever must be one of ${Object.keys(SCORERS).join(', ')}`);
  const idx = await openIndex(indexDir);
  const kb = engineKnowledgeBase(idx, { forced: { withContext: false } });
  const t0 = performance.now();
  const g = await buildDualGraph(sourceFromIndexDir(idx.dir));
  const buildSeconds = (performance.now() - t0) / 1000;
  const searcher = new DualgSearcher(searcherParts(g), searcherSettings({}, scorer), values.retriever!);
  const questions = loadBench(bench).questions.map((q) => q.question);
  for (const q of questions.slice(0, 5)) await searcher.search(q, { k: 8 }, kb); // warm-up (JIT, caches)
  const total: number[] = [];
  const sums: Record<string, number> = {};
  for (let r = 0; r < Number(values.repeat); r++) {
    for (const q of questions) {
      const res = await searcher.search(q, { k: 8 }, kb);
      total.push(res.timings.totalMs);
      for (const [k, v] of Object.entries(res.timings)) if (k !== 'totalMs') sums[k] = (sums[k] ?? 0) + v;
    }
  }
  const all = total.reduce((a, b) => a + b, 0) || 1;
  const share = (keys: string[]) => round((100 * keys.reduce((a, k) => a + (sums[k] ?? 0), 0)) / all);
  console.log(
    JSON.stringify({
      bench,
      retriever: values.retriever,
      queries: total.length,
      graphBuildSeconds: round(buildSeconds),
      graph: g.meta.stats,
      latencyMs: { p50: round(percentile(total, 0.5)), p90: round(percentile(total, 0.9)), mean: round(all / total.length) },
      sharePercent: { micro: share(['matching']), macro: share(['linking', 'gnn', 'paths']), hybridPool: share(['hybrid']) },
      stageMeanMs: Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, round(v / total.length)])),
    }),
  );
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
