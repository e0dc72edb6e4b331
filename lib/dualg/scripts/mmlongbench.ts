/**
 * DualG-MRAG on MMLongBench-Doc (issue 11 target: "page R@8 above hybrid's 0.706, and the
 * w/o-micro ablation lower on the Table and Chart buckets"). Runs `kf eval retrieval` once
 * per retriever (page level, each search restricted to the question's own document) and
 * prints ONE table: R@2/5/8 and all-found@8 overall and per evidence-source bucket
 * (Text/Layout/Table/Chart/Figure; a question listing two sources counts in both), plus
 * the exact commands, so the figures can be reproduced by hand.
 *
 *   node --import tsx lib/dualg/scripts/mmlongbench.ts [--index DIR] [--questions FILE] [--out DIR] [--runs hybrid,dualg] [--reuse] [--pages]
 *
 * --pages adds a diagnostic table: the same retrievers run again with 20 hits (into <out>-k20), scored on the
 * first 8 DISTINCT pages among them (what a page ranker returning one hit per page would score). It measures how
 * many of the 8 places repeated pages waste; it is not the official R@k (that counts hits).
 *
 * The index is the one `kf index build --bench mmlongbench-doc --out .kf-cache/index/mmlongbench-doc` built;
 * records and summaries land in --out (default /tmp/dg3-mmlb/<run>/). --reuse skips a run whose records exist.
 */
import { recallAtK } from '../../eval/recall';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scriptArgs } from '../../util/script-args';
import { loadBench } from '../../bench/registry';

export interface RunSpec {
  name: string;
  flags: string[];
}

/** The compared retrievers: the engine's modes and the registered DualG retriever with its w/o-micro ablation. */
export const RUNS: RunSpec[] = [
  { name: 'hybrid', flags: ['--mode', 'hybrid'] },
  { name: 'hybrid+graph', flags: ['--mode', 'hybrid+graph'] },
  { name: 'dualg', flags: ['--retriever', 'dualg'] },
  { name: 'dualg-no-micro', flags: ['--retriever', 'dualg-no-micro'] },
  // The two one-document micro rules of lib/dualg/query/micro-label-match.ts: label matching (off by default) switched
  // on, figure references (on by default) switched off.
  { name: 'dualg+labels', flags: ['--retriever', 'dualg', '--retriever-settings', '{"microLabels":true}'] },
  { name: 'dualg-no-figures', flags: ['--retriever', 'dualg', '--retriever-settings', '{"microFigures":false}'] },
];

export const BUCKETS = ['Text', 'Layout', 'Table', 'Chart', 'Figure'] as const;
/**
 * The metrics of the table: keys of the per-question `scores` of records.jsonl, plus pages@8, the distinct pages
 * among the first 8 hits (R@k counts hits, so several fragments of one page use several of the k places).
 */
export const METRICS = ['R@2', 'R@5', 'R@8', 'allFound@8', 'pages@8'] as const;

/** A record's scores plus pages@8. */
function withPages(r: EvalRecord): Record<string, number> {
  return { ...r.scores, 'pages@8': new Set(r.hits.slice(0, 8).map((h) => h.page)).size };
}

export interface EvalRecord {
  id: string;
  excluded: boolean;
  scores: Record<string, number> | null;
  gold?: string[];
  hits: { docId?: string; page?: number }[];
}

/** R@k and allFound@k over the first k distinct pages of the hits (gold units are "<doc>#p<page>", as in lib/eval/retrieval.ts). */
export function distinctPageScores(r: EvalRecord, ks: number[]): EvalRecord {
  if (!r.scores || !r.gold?.length) return r;
  const pages = [...new Set(r.hits.filter((h) => h.page !== undefined).map((h) => `${h.docId}#p${h.page}`))];
  const scores = recallAtK(pages, r.gold, ks)!;
  const firstPages = pages.slice(0, 8).map((u) => ({ page: Number(u.slice(u.lastIndexOf('#p') + 2)) }));
  return { ...r, scores, hits: firstPages };
}

export interface BucketRow {
  bucket: string;
  n: number;
  means: Record<string, number>;
}

/** Mean of each metric overall and per bucket (questions without gold pages are excluded, as in kf eval retrieval). */
export function bucketMeans(records: EvalRecord[], sourcesOf: Map<string, string[]>): BucketRow[] {
  const groups = new Map<string, Record<string, number>[]>([['all', []], ...BUCKETS.map((b): [string, Record<string, number>[]] => [b, []])]);
  for (const r of records) {
    if (r.excluded || !r.scores) continue;
    const scores = withPages(r);
    groups.get('all')!.push(scores);
    for (const s of new Set(sourcesOf.get(r.id) ?? [])) (groups.get(s) ?? groups.set(s, []).get(s)!).push(scores);
  }
  return [...groups.entries()].map(([bucket, rows]) => {
    const means: Record<string, number> = {};
    for (const m of METRICS) means[m] = rows.length ? rows.reduce((a, x) => a + (x[m] ?? 0), 0) / rows.length : NaN;
    return { bucket, n: rows.length, means };
  });
}

/** Paired comparison on one metric: questions where `a` beats `b`, ties, and where `b` beats `a`. */
export function pairedCounts(a: EvalRecord[], b: EvalRecord[], metric: string): { better: number; same: number; worse: number } {
  const byId = new Map(b.map((r) => [r.id, r]));
  let better = 0;
  let same = 0;
  let worse = 0;
  for (const r of a) {
    const o = byId.get(r.id);
    if (!r.scores || !o?.scores) continue;
    const d = (r.scores[metric] ?? 0) - (o.scores[metric] ?? 0);
    if (d > 1e-9) better++;
    else if (d < -1e-9) worse++;
    else same++;
  }
  return { better, same, worse };
}

export function readRecords(file: string): EvalRecord[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as EvalRecord);
}

function commandFor(run: RunSpec, o: { index: string; questions: string; corpus: string; out: string }, ks: string): string[] {
  return [
    'bin/kf.js',
    'eval',
    'retrieval',
    '--bench',
    'mmlongbench-doc',
    '--corpus',
    o.corpus,
    '--questions',
    o.questions,
    '--index',
    o.index,
    '--k',
    ks,
    '--quiet',
    '--out',
    path.join(o.out, run.name),
    ...run.flags,
  ];
}

/** Run (or, with reuse, read back) one retriever's evaluation; returns its per-question records. */
function evaluate(run: RunSpec, args: string[], outDir: string, reuse: boolean): EvalRecord[] {
  const recFile = path.join(outDir, run.name, 'records.jsonl');
  if (!(reuse && fs.existsSync(recFile))) {
    console.error(`[dualg-mmlongbench] ${run.name} ...`);
    const res = spawnSync('nice', ['-n', '10', 'node', ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, KF_TSX: '1' } });
    if (res.status !== 0) throw new Error(`${run.name}: kf eval retrieval exited ${res.status}`);
    console.error(`[dualg-mmlongbench] ${run.name}: ${String(res.stdout).trim().slice(0, 300)}`);
  }
  return readRecords(recFile);
}

/** An argument as a shell reads it back (the printed commands are meant to be pasted). */
export const shellQuote = (a: string): string => (/^[\w./,=:+@-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);

const f3 = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(3));

/** The table: one block per bucket, one line per retriever. */
export function formatTable(rows: Map<string, BucketRow[]>): string {
  const runs = [...rows.keys()];
  const buckets = rows.get(runs[0])!.map((r) => r.bucket);
  const lines = [`${'bucket'.padEnd(8)} ${'n'.padStart(4)}  ${'retriever'.padEnd(16)} ${METRICS.map((m) => m.padStart(10)).join(' ')}`];
  for (const b of buckets) {
    for (const run of runs) {
      const r = rows.get(run)!.find((x) => x.bucket === b)!;
      lines.push(`${b.padEnd(8)} ${String(r.n).padStart(4)}  ${run.padEnd(16)} ${METRICS.map((m) => f3(r.means[m]).padStart(10)).join(' ')}`);
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = scriptArgs(__filename, {
    options: {
      index: { type: 'string', default: '.kf-cache/index/mmlongbench-doc' },
      questions: { type: 'string', default: '../shared/bench/mmlongbench-doc/samples.dev.json' },
      corpus: { type: 'string', default: '../shared/bench/mmlongbench-doc/documents' },
      out: { type: 'string', default: '/tmp/dg3-mmlb' },
      runs: { type: 'string' },
      reuse: { type: 'boolean' },
      pages: { type: 'boolean' },
    },
  });
  const o = { index: values.index!, questions: values.questions!, corpus: values.corpus!, out: values.out! };
  const wanted = values.runs ? values.runs.split(',') : RUNS.map((r) => r.name);
  const runs = RUNS.filter((r) => wanted.includes(r.name));
  const data = loadBench('mmlongbench-doc', o.corpus, o.questions);
  const sourcesOf = new Map(data.questions.map((q) => [q.id, (q.meta?.evidenceSources as string[] | undefined) ?? []]));
  const rows = new Map<string, BucketRow[]>();
  const records = new Map<string, EvalRecord[]>();
  const commands: string[] = [];
  for (const run of runs) {
    const args = commandFor(run, o, '1,2,3,5,8');
    commands.push(`nice -n 10 env KF_TSX=1 node ${args.map(shellQuote).join(' ')}`);
    records.set(run.name, evaluate(run, args, o.out, !!values.reuse));
    rows.set(run.name, bucketMeans(records.get(run.name)!, sourcesOf));
  }
  const pageRows = new Map<string, BucketRow[]>();
  if (values.pages) {
    const o20 = { ...o, out: `${o.out}-k20` };
    for (const run of runs) {
      const args = commandFor(run, o20, '8,20');
      commands.push(`nice -n 10 env KF_TSX=1 node ${args.map(shellQuote).join(' ')}`);
      const recs = evaluate(run, args, o20.out, !!values.reuse).map((r) => distinctPageScores(r, [2, 5, 8]));
      pageRows.set(run.name, bucketMeans(recs, sourcesOf));
    }
  }
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
  console.log(`MMLongBench-Doc page-level retrieval (per document), index ${o.index}, questions ${o.questions}, git ${commit}\n`);
  console.log(formatTable(rows));
  if (pageRows.size) {
    console.log('\nDiagnostic, not the official R@k: the first 8 DISTINCT pages among 20 hits (a one-hit-per-page ranker)\n');
    console.log(formatTable(pageRows));
  }
  const pairs: [string, string][] = [
    ['dualg', 'hybrid'],
    ['dualg', 'dualg-no-micro'],
    ['dualg+labels', 'dualg'],
    ['dualg', 'dualg-no-figures'],
  ];
  console.log('');
  for (const [a, b] of pairs) {
    if (!records.has(a) || !records.has(b)) continue;
    for (const metric of ['R@8', 'R@5']) {
      const c = pairedCounts(records.get(a)!, records.get(b)!, metric);
      console.log(`${metric} per question, ${a} vs ${b}: better ${c.better}, same ${c.same}, worse ${c.worse}`);
    }
  }
  console.log(`\ncommands:\n${commands.join('\n')}`);
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
