/** The text form of a `kf bench retrieval` report (what the CLI prints without --json). */
import type { RetrievalBenchReport, SizeReport } from './benchmark';

const f = (x: number | null | undefined, d = 2) => (x !== null && x !== undefined && Number.isFinite(x) ? x.toFixed(d) : '-');
const sec = (ms: number | undefined) => f(ms === undefined ? undefined : ms / 1000, 1);

function buildLine(s: SizeReport): string {
  const b = s.build;
  const cached = b.fromCache ? ` (cached; loaded in ${sec(b.loadMs ?? 0)} s)` : '';
  const index = b.bm25Ms !== undefined ? `index ${sec(b.indexMs)} s (BM25 ${sec(b.bm25Ms)} s, HNSW ${sec(b.hnswMs)} s)` : `index ${sec(b.indexMs)} s`;
  const edges = `edges ${sec(b.edgesMs)} s (${b.edges}${b.edgesMethod ? `, ${b.edgesMethod}` : ''})`;
  return `  build${cached}: generate ${sec(b.generateMs)} s, fit ${sec(b.fitMs)} s, embed ${sec(b.embedMs)} s, ${index}, ${edges}, total ${sec(b.totalMs)} s`;
}

function sizeLines(s: SizeReport): string[] {
  const lines = [`${s.fragments} fragments / ${s.documents} documents, embedder ${s.embedder} (${s.dim}-d), efSearch ${s.efSearch}`, buildLine(s)];
  const c = s.edgeComparison;
  if (c)
    lines.push(
      `  edges by '${c.method}' on the same engine: ${c.edges} in ${sec(c.ms)} s; shared ${c.common} (${f(100 * c.recallOfOther, 1)}% of them), Jaccard ${f(c.jaccard, 3)}`,
    );
  lines.push(`  stage          p50 ms   p90 ms   mean ms`);
  for (const [k, v] of Object.entries(s.stages)) {
    const name = k === 'wideningMs' ? ' (widening)' : k.replace('Ms', '');
    lines.push(`  ${name.padEnd(12)} ${f(v.p50, 3).padStart(8)} ${f(v.p90, 3).padStart(8)} ${f(v.mean, 3).padStart(9)}`);
  }
  for (const e of s.efSweep ?? [])
    lines.push(
      `  efSearch ${String(e.efSearch).padStart(5)}: pure HNSW recall@8 ${f(e.hnswRecallAt8, 4)} (top-8 graph search p50 ${f(e.hnswP50Ms, 3)} ms); dense stage recall@8 ${f(e.denseStageRecallAt8, 4)}; round p50 ${f(e.roundP50Ms, 3)} ms`,
    );
  lines.push(`  query embedding (separate): ${f(s.queryEmbedMsPerQuery, 3)} ms/query; hits/query ${f(s.hitsPerQuery, 1)}`);
  lines.push(
    `  recall@8 vs exact dense search: pure HNSW ${f(s.hnswRecallAt8, 4)}; dense stage as searched (HNSW + lexical seeds + document siblings) ${f(s.denseStageRecallAt8, 4)}`,
  );
  const m = s.memory;
  lines.push(
    `  memory: RSS ${f(m.rssMB, 0)} MB (peak ${f(m.peakRssMB, 0)} MB), heap ${f(m.heapUsedMB, 0)} MB, array buffers ${f(m.arrayBuffersMB, 0)} MB; ` +
      `per structure (exact: BM25, vectors, GloVe; computed: graph; estimated: fragments, relations): BM25 ${f(m.bm25IndexMB, 0)} MB, vectors ${f(m.denseVectorsMB, 0)} MB, ` +
      `HNSW graph ${f(m.hnswGraphMB, 0)} MB, GloVe table ${f(m.gloveTableMB ?? NaN, 0)} MB, fragments ${f(m.fragmentsMB, 0)} MB, relations ${f(m.relationsMB, 0)} MB`,
  );
  if (m.stagePeakRssMB)
    lines.push(
      `  peak RSS per stage (MB${m.stagePeaksReset ? '' : ', running peak: not resettable here'}): ` +
        Object.entries(m.stagePeakRssMB)
          .map(([k, v]) => `${k} ${f(v, 0)}`)
          .join(', '),
    );
  return lines;
}

export function formatBenchReport(r: RetrievalBenchReport): string {
  const lines: string[] = [
    `retrieval round benchmark (offline; mode ${r.config.mode}, topk ${r.config.topk}, ${r.config.queries} queries, seed ${r.config.seed}, node ${r.node})`,
  ];
  for (const s of r.sizes) lines.push('', ...sizeLines(s));
  if (r.curve.length > 1) {
    lines.push('', 'growth curve: fragments  build s  round p50 ms  p90 ms  HNSW p50 ms  recall@8  efSearch  peak RSS MB');
    for (const p of r.curve)
      lines.push(
        `              ${String(p.fragments).padStart(9)} ${f(p.buildS, 1).padStart(8)} ${f(p.roundP50Ms, 3).padStart(13)} ${f(p.roundP90Ms, 3).padStart(7)} ${f(p.hnswP50Ms, 3).padStart(12)} ${f(p.hnswRecallAt8, 4).padStart(9)} ${String(p.efSearch).padStart(9)} ${f(p.peakRssMB, 0).padStart(12)}`,
      );
  }
  if (r.growth) {
    lines.push(
      '',
      `growth: ${r.growth.from} -> ${r.growth.to} fragments (${f(r.growth.corpusRatio, 1)}x corpus): round p50 x${f(r.growth.roundP50Ratio, 3)} (${f((r.growth.roundP50Ratio - 1) * 100, 1)}% more time)`,
    );
  }
  return lines.join('\n');
}
