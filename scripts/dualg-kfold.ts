/**
 * DualG heuristic settings under k-fold cross-validation (never report a figure
 * tuned on the questions it is reported on): every grid configuration is run
 * once per question; for each of k folds the configuration with the best mean
 * objective on the other folds is chosen and scored on the held-out fold.
 * Prints the default configuration's figures, the k-fold figures and the
 * configurations each fold chose (--all: every configuration's means on stderr).
 *
 *   node --import tsx scripts/dualg-kfold.ts --bench 2wiki [--index DIR] [--folds 5] [--seed 1] [--objective allFound@2]
 *     [--grid around|full]
 * --grid around (default): the defaults plus one setting changed at a time (about fifteen configurations);
 * --grid full: every combination of a few values of eight constants (256 configurations; more room to overfit).
 * The objective defaults to the figure the issue sets a target on: 2wiki allFound@2, musique R@5, hotpotqa R@2
 * (plus 0.25 x R@5 as a tie-breaker).
 * The index is the one `kf eval retrieval --bench <b> --offline` built (newest
 * .kf-cache/indexes/<bench>-*), or --index.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { loadBench } from '../lib/bench/registry';
import { assertBenchmarkName } from '../lib/bench/names';
import { openIndex } from '../lib/index/open';
import { engineKnowledgeBase } from '../lib/pipeline/index-view';
import { goldUnits } from '../lib/eval/retrieval';
import { makeRng } from '../lib/util/rng';
import { graphFor } from '../lib/dualg/graph-for';
import { searcherParts, searcherSettings } from '../lib/dualg/retriever';
import { DualgSearcher } from '../lib/dualg/query/searcher';

const KS = [1, 2, 5, 8];

/** The full grid: a few values of the constants chosen by hand while developing (see the report). */
function fullGrid(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const bridge of [0.45, 0.6])
    for (const both of [0, 0.25])
      for (const seedFirst of [0, 1])
        for (const comention of [0, 0.6])
          for (const contains of [0, 1])
            for (const hub of [0, 0.5])
              for (const seedContains of [0, 1])
                for (const hybrid of [0, 0.5]) {
                  const heuristic = { bridge, both, seedFirst, comention, hops: comention ? 2 : 1, contains, hub, seedContains };
                  out.push({ heuristic, hybrid });
                }
  return out;
}

/** Alternatives to each default, one setting at a time (fewer configurations: less room to overfit a fold). */
const AROUND: Record<string, number[]> = {
  bridge: [0.45],
  both: [0],
  seedFirst: [0],
  comention: [0, 0.3],
  contains: [0, 2],
  hub: [0, 1],
  cap: [0],
  prefix: [0],
  seedContains: [0],
  target: [0.5],
  lexical: [1],
};

function aroundGrid(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const [k, vs] of Object.entries(AROUND)) for (const v of vs) out.push({ heuristic: { [k]: v, ...(k === 'comention' && v === 0 ? { hops: 1 } : {}) } });
  out.push({ hybrid: 0.5 });
  return out;
}

/** The figure issue 11 sets a target on for each corpus (the selection objective unless --objective says otherwise). */
const TARGET_OBJECTIVE: Record<string, string> = { '2wiki': 'allFound@2', musique: 'R@5', hotpotqa: 'R@2' };

function newestIndex(bench: string): string {
  const root = path.join(process.cwd(), '.kf-cache', 'indexes');
  const dirs = fs.existsSync(root) ? fs.readdirSync(root).filter((d) => d.startsWith(`${bench}-`)) : [];
  if (!dirs.length) throw new Error(`no index for ${bench} under ${root}: run kf eval retrieval --bench ${bench} --offline first, or pass --index`);
  return path.join(root, dirs.sort((a, b) => fs.statSync(path.join(root, b)).mtimeMs - fs.statSync(path.join(root, a)).mtimeMs)[0]);
}

type Row = Record<string, number>;

function mean(rows: Row[]): Row {
  const out: Row = {};
  for (const r of rows) for (const [k, v] of Object.entries(r)) out[k] = (out[k] ?? 0) + v / rows.length;
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, Math.round(v * 1e4) / 1e4]));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      bench: { type: 'string' },
      index: { type: 'string' },
      folds: { type: 'string', default: '5' },
      seed: { type: 'string', default: '1' },
      objective: { type: 'string' },
      all: { type: 'boolean' },
      grid: { type: 'string', default: 'around' },
    },
  });
  const bench = assertBenchmarkName(values.bench ?? '2wiki', '--bench');
  const indexDir = values.index ?? newestIndex(bench);
  const data = loadBench(bench);
  const idx = await openIndex(indexDir);
  const kb = engineKnowledgeBase(idx, { forced: { withContext: false } });
  const g = await graphFor({ indexDir: idx.dir, settings: {} });
  const parts = searcherParts(g);
  if (values.grid !== 'full' && values.grid !== 'around') throw new Error(`--grid is full or around, not ${values.grid}`);
  const configs = [{}, ...(values.grid === 'full' ? fullGrid() : aroundGrid())];
  const qs = data.questions.filter((q) => goldUnits(q, 'document').length);
  const table: Row[][] = [];
  for (const c of configs) {
    const searcher = new DualgSearcher(parts, searcherSettings(c, 'heuristic'), 'dualg-heuristic');
    const rows: Row[] = [];
    for (const q of qs) {
      const r = await searcher.search(q.question, { k: 8 }, kb);
      const gold = goldUnits(q, 'document');
      const row: Row = {};
      for (const k of KS) {
        const top = new Set(r.hits.slice(0, k).map((h) => h.docId));
        const found = gold.filter((x) => top.has(x)).length;
        row[`R@${k}`] = found / gold.length;
        row[`allFound@${k}`] = found === gold.length ? 1 : 0;
      }
      rows.push(row);
    }
    table.push(rows);
  }
  const folds = Number(values.folds);
  const order = qs.map((_, i) => i);
  const rng = makeRng(`dualg-kfold:${values.seed}`);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const held: Row[] = new Array(qs.length);
  const chosen: number[] = [];
  const obj = values.objective ?? TARGET_OBJECTIVE[bench] ?? 'allFound@2';
  if (!(obj in table[0][0])) throw new Error(`--objective is one of ${Object.keys(table[0][0]).join(', ')}, not ${obj}`);
  for (let f = 0; f < folds; f++) {
    const test = new Set(order.filter((_, i) => i % folds === f));
    const trainScore = (c: number) => mean(table[c].filter((_, i) => !test.has(i)))[obj] + 0.25 * mean(table[c].filter((_, i) => !test.has(i)))['R@5'];
    let best = 0;
    for (let c = 1; c < configs.length; c++) if (trainScore(c) > trainScore(best)) best = c;
    chosen.push(best);
    for (const i of test) held[i] = table[best][i];
  }
  if (values.all) configs.forEach((c, i) => console.error(JSON.stringify({ config: c, ...mean(table[i]) })));
  console.log(
    JSON.stringify({
      bench,
      questions: qs.length,
      folds,
      objective: obj,
      grid: values.grid,
      configurations: configs.length,
      default: mean(table[0]),
      kfold: mean(held),
      chosen: chosen.map((c) => configs[c]),
      graph: g.meta.stats,
    }),
  );
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
