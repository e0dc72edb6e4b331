/**
 * MultiHop-RAG retrieval by question type (the KnowForge paper's Table 11):
 * M5's retrieval side, model-free, scored per question (first search R@k,
 * R@all over every search) and averaged within each question type
 * (inference, comparison, temporal, null) and over all. Null questions have no
 * evidence, so they carry no recall and are counted as excluded.
 *
 * `multihopRagShared` loads the benchmark when its article corpus is present;
 * the shared benchmark folder ships only the queries and ground truth, so a
 * notebook says what is missing instead of measuring nothing.
 */
import * as fs from 'node:fs';
import type { BenchmarkData } from '../../bench/types';
import { loadBenchmark } from '../../bench/registry';
import { benchDir } from '../../util/paths';
import { isKfError } from '../../util/errors';
import { ensureIndex } from '../../index/build';
import { openIndex } from '../../index/open';
import { configRetrieval, type PipelineRetrievalRecord } from '../../run/pipeline-retrieval';

/** The paper's Table 11 protocol (R@1, R@3, R@8 per question type), not the default set (eval/recall RECALL_KS). */
export const TABLE11_KS = [1, 3, 8];

export type TypeRow = Record<string, string | number | null>;

/** The benchmark with its corpus, or why it cannot be loaded (the notebook's skip note). */
export function multihopRagShared(corpus?: string): { data?: BenchmarkData; missing?: string } {
  const file = corpus ?? benchDir('multihop-rag', 'corpus.json');
  if (!fs.existsSync(file))
    return {
      missing: `the MultiHop-RAG article corpus (${file}) is not here: the shared folder holds only the queries and ground truth; download the corpus (corpus.json of the MultiHop-RAG release) and pass its path as CORPUS`,
    };
  try {
    return { data: loadBenchmark('multihop-rag', { corpus: file }) };
  } catch (e) {
    if (isKfError(e)) return { missing: `${e.message} (${e.hint})` };
    throw e;
  }
}

/** Mean per question type and over all, x100, of R@k for each k and R@all. */
export function retrievalByType(records: readonly PipelineRetrievalRecord[], typeOf: (id: string) => string, ks: number[] = TABLE11_KS): TypeRow[] {
  const groups = new Map<string, PipelineRetrievalRecord[]>();
  for (const r of records) {
    const t = typeOf(r.id) || 'unknown';
    groups.set(t, [...(groups.get(t) ?? []), r]);
  }
  const row = (type: string, rs: readonly PipelineRetrievalRecord[]): TypeRow => {
    const scored = rs.filter((r) => r.scores);
    const mean = (key: string) => (scored.length ? Math.round((1000 * scored.reduce((s, r) => s + (r.scores![key] ?? 0), 0)) / scored.length) / 10 : null);
    const out: TypeRow = { type, questions: rs.length, scored: scored.length };
    for (const k of ks) out[`R@${k}`] = mean(`R@${k}`);
    out['R@all'] = mean('R@all');
    return out;
  };
  return [...[...groups.keys()].sort().map((t) => row(t, groups.get(t)!)), row('all', records)];
}

/** M5's retrieval side on MultiHop-RAG over an offline index of its corpus, by question type. */
export async function multihopRagRetrievalByType(data: BenchmarkData, opts: { config?: string; limit?: number } = {}) {
  const ensured = await ensureIndex({ passages: data.passages, corpusDir: data.corpusDir, embedder: 'fitted', options: { benchmark: data.name } });
  const idx = await openIndex(ensured.dir);
  const records: PipelineRetrievalRecord[] = [];
  const { summary } = await configRetrieval(opts.config ?? 'M5', idx, data, { ks: TABLE11_KS, limit: opts.limit, onRecord: (r) => records.push(r) });
  const types = new Map(data.questions.map((q) => [q.id, String(q.meta?.questionType ?? 'unknown')]));
  return { rows: retrievalByType(records, (id) => types.get(id) ?? 'unknown'), summary, index: { dir: ensured.dir, offline: idx.manifest.offline } };
}
