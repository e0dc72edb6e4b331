/**
 * The GNN against the heuristic per corpus and pooled over corpora (issue 18 target: "the GNN scorer ahead of
 * the heuristic on the dev questions pooled under k-fold, sign test p < 0.05"), from the per-question rows
 * `kf train gnn` writes. Pooling keys each question by corpus and id, so the paired sign test runs over every
 * dev question of every corpus at once. Three GNN figures are compared: gnn-base (no dev question in training at
 * all), gnn-kfold (each question scored by the fold model that did not train on it) and gnn-kfold-direct (the
 * same, with fold models fine-tuned from the untrained model on the other folds' dev questions only).
 */
import { comparePaired, type PairedComparison } from '../../eval/stats';
import { meanMetrics, type QuestionMetrics } from './evaluate';
import { PAIRED_METRICS } from './compare';

type Metric = (typeof PAIRED_METRICS)[number];
/**
 * Scorer level (the graph scorer's document ranking alone) and retriever level (the `dualg` retriever's final
 * ranking with that scorer: hybrid fallback and fill-up included, retriever-compare.ts; reports written before it
 * existed have no such rows, and their pooled tables leave them out). Each GNN figure is paired with the
 * heuristic of its own level.
 */
const PAIRS = [
  ['gnn-base', 'heuristic'],
  ['gnn-kfold', 'heuristic'],
  ['gnn-kfold-direct', 'heuristic'],
  ['dualg-gnn-base', 'dualg-heuristic'],
  ['dualg-gnn-kfold', 'dualg-heuristic'],
  ['dualg-gnn-kfold-direct', 'dualg-heuristic'],
] as const;
const SHOWN_METHODS = [
  'gnn-base',
  'gnn-kfold',
  'gnn-kfold-direct',
  'heuristic',
  'ppr',
  'dualg-gnn-base',
  'dualg-gnn-kfold',
  'dualg-gnn-kfold-direct',
  'dualg-heuristic',
] as const;

/** What the pooled report reads from one corpus's training report. */
export interface CorpusRows {
  bench: string;
  /** What the base model trained on, in words. */
  baseQueries?: string;
  /** The GNN the rows are of (preset, size, Enc(q), prior, tfjs backend; preset-run.ts gnnRowLabel); absent in reports before --preset. */
  gnn?: string;
  perQuestion: Record<string, QuestionMetrics[]>;
}

export interface PooledReport {
  kind: 'dualg-gnn-pooled-report';
  note: string;
  corpora: {
    bench: string;
    baseQueries?: string;
    gnn?: string;
    means: Record<string, ReturnType<typeof meanMetrics>>;
    paired: Record<string, Record<Metric, PairedComparison>>;
  }[];
  pooled: { n: number; means: Record<string, ReturnType<typeof meanMetrics>>; paired: Record<string, Record<Metric, PairedComparison>> };
}

function keyed(rows: CorpusRows[], method: string): QuestionMetrics[] {
  return rows.flatMap((r) => (r.perQuestion[method] ?? []).map((q) => ({ ...q, id: `${r.bench}/${q.id}` })));
}

function summary(rows: CorpusRows[]) {
  // A method is shown (and paired) when every corpus has its rows: pooling a level some corpora lack would mislead.
  const has = (m: string) => rows.every((r) => (r.perQuestion[m] ?? []).length > 0);
  const means = Object.fromEntries(SHOWN_METHODS.filter(has).map((m) => [m, meanMetrics(keyed(rows, m))]));
  const metric = (m: string, f: Metric) => new Map(keyed(rows, m).map((q) => [q.id, q[f]]));
  const paired = Object.fromEntries(
    PAIRS.filter(([g, h]) => has(g) && has(h)).map(([g, h]) => [
      `${g} vs ${h}`,
      Object.fromEntries(PAIRED_METRICS.map((f) => [f, comparePaired(metric(g, f), metric(h, f))])),
    ]),
  ) as Record<string, Record<Metric, PairedComparison>>;
  return { means, paired };
}

export function pooledReport(rows: CorpusRows[]): PooledReport {
  return {
    kind: 'dualg-gnn-pooled-report',
    note:
      'offline indexes, model-free. Scorer level (gnn-*, heuristic, ppr): document ranking by the graph scorer alone (no hybrid fill-up, ' +
      'no micro fusion; the GNN reads the hybrid rank as a feature and may rank the hybrid top documents). Retriever level (dualg-*): the ' +
      "dualg retriever's final ranking (micro fusion, hybrid fallback and fill-up) with that scorer; dualg-heuristic is the shipped default. " +
      'gnn-base: never saw a dev question; gnn-kfold: each dev question scored by the fold model that did not train on it; ' +
      'gnn-kfold-direct: the same, fold models fine-tuned from the untrained model (the heuristic ranking) on dev questions only, ' +
      'epoch 0 (no change) allowed by the inner validation. ' +
      'Sign test: two-sided, exact, ties dropped. Pre-registered primary metric: R@5; the others are secondary.' +
      (rows.some((r) => r.gnn?.includes('no prior'))
        ? ' A GNN with no prior (the paper preset) reads neither the heuristic nor the hybrid rank, and its untrained model, where ' +
          'gnn-kfold-direct starts, ranks at random, not as the heuristic.'
        : ''),
    corpora: rows.map((r) => ({ bench: r.bench, baseQueries: r.baseQueries, ...(r.gnn ? { gnn: r.gnn } : {}), ...summary([r]) })),
    pooled: { n: keyed(rows, 'heuristic').length, ...summary(rows) },
  };
}

const LABEL: Record<Metric, string> = { r2: 'R@2', r5: 'R@5', allFound2: 'all@2', allFound5: 'all@5', allFound8: 'all@8' };

function block(title: string, s: ReturnType<typeof summary>): string[] {
  const f = (x: number) => x.toFixed(3);
  const lines = [
    `### ${title}`,
    '',
    `| scorer | n | ${PAIRED_METRICS.map((m) => LABEL[m]).join(' | ')} |`,
    `|---|---|${PAIRED_METRICS.map(() => '---').join('|')}|`,
  ];
  for (const [m, v] of Object.entries(s.means)) lines.push(`| ${m} | ${v.n} | ${PAIRED_METRICS.map((k) => f(v[k])).join(' | ')} |`);
  lines.push(
    '',
    `| paired (won/lost/tied, sign test p, mean diff [95% bootstrap]) | ${PAIRED_METRICS.map((m) => LABEL[m]).join(' | ')} |`,
    `|---|${PAIRED_METRICS.map(() => '---').join('|')}|`,
  );
  for (const [k, v] of Object.entries(s.paired)) {
    const cell = (c: PairedComparison) =>
      `${c.won}/${c.lost}/${c.tied}, p=${c.signTestP.toPrecision(3)}, diff ${c.diff.toFixed(3)} [${c.bootstrapCI.map((x) => x.toFixed(3)).join(', ')}]`;
    lines.push(`| ${k} | ${PAIRED_METRICS.map((m) => cell(v[m])).join(' | ')} |`);
  }
  return [...lines, ''];
}

export function pooledMarkdown(r: PooledReport): string {
  const lines = ['# DualG GNN vs heuristic on dev (offline, model-free)', '', r.note, ''];
  for (const c of r.corpora) {
    const about = [c.gnn, c.baseQueries ? `base model: ${c.baseQueries}` : undefined].filter(Boolean).join('; ');
    lines.push(...block(`${c.bench}${about ? ` (${about})` : ''}`, c));
  }
  if (r.corpora.length > 1) lines.push(...block(`pooled over ${r.corpora.map((c) => c.bench).join(', ')} (n = ${r.pooled.n})`, r.pooled));
  return `${lines.join('\n')}\n`;
}
