/**
 * `kf bench dualg` on the tiny demo preset: behaviour only (what is timed and
 * reported, caching, skipped scorers, bad options); no timing assertions.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { command } from '../../lib/dualg/commands/bench-dualg';
import { demoBenchCorpus } from '../../lib/dualg/bench-corpus';
import { benchDualg, benchQueries, formatDualgBench } from '../../lib/dualg/bench';
import { hasWord } from '../../lib/dualg/query/prior';
import { commandContext } from '../../lib/cli/command-context';

let tmp = '';
const saved: Record<string, string | undefined> = {};

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-bench-dualg-'));
  // A trained-checkpoint lookup must not find anything in the checkout's state folder.
  for (const k of ['KF_STATE_DIR', 'KF_GNN_CHECKPOINTS']) saved[k] = process.env[k];
  process.env.KF_STATE_DIR = path.join(tmp, 'state');
  process.env.KF_GNN_CHECKPOINTS = path.join(tmp, 'checkpoints');
});

after(() => {
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('benchQueries: seeded order, cycled to the count asked for', () => {
  const qs = ['a', 'b', 'c'];
  const one = benchQueries(qs, 7, 's');
  assert.equal(one.length, 7);
  assert.deepEqual(one, benchQueries(qs, 7, 's'));
  assert.deepEqual(new Set(one.slice(0, 3)), new Set(qs));
  assert.deepEqual(one.slice(3, 6), one.slice(0, 3));
  assert.throws(() => benchQueries([], 3, 's'), /no questions/);
});

test('hasWord answers what a Set of the words answers (the prior edge features use it)', () => {
  const lists = ['born', 'mother of', 'the mother', 'grandmother born', 'a  b', '', 'mothers mother'];
  const words = ['mother', 'born', 'moth', 'of', 'a b', '', 'b', 'mothers'];
  let holds = 0;
  for (const l of lists)
    for (const w of words) {
      const want = new Set(l.split(' ')).has(w);
      assert.equal(hasWord(l, w), want, `"${l}" / "${w}"`);
      if (want) holds++;
    }
  assert.ok(holds > 3);
});

test('tiny preset: graph built, every scorer timed or skipped with the reason, cache reused', async () => {
  const cacheDir = path.join(tmp, 'cache');
  const corpus = await demoBenchCorpus('tiny', { cacheDir });
  assert.ok(corpus.fragments > 0 && corpus.documents > 0 && corpus.questions.length > 0);
  assert.equal(corpus.build.engineFromCache, false);
  const r = await benchDualg(corpus, { queries: 6, warmup: 1, scorers: ['dualg', 'gnn-untrained', 'dualg-gnn'], cacheDir });
  assert.equal(r.build.graphFromCache, false);
  assert.ok(r.graph.entities > 0 && r.graph.triples > 0);
  const [heur, gnn, trained] = r.scorers;
  for (const s of [heur, gnn]) {
    assert.equal(s.queries, 6);
    assert.ok(s.graphRanked > 0, `${s.scorer} ranked no search with the graph`);
    assert.ok(s.latencyMs.p50 > 0 && s.latencyMs.p90 >= s.latencyMs.p50);
    assert.deepEqual(Object.keys(s.stagesMs).sort(), ['hybrid', 'linking', 'matching', 'paths', 'scorer']);
    const { micro, macro, hybridPool, other } = s.sharePercent;
    assert.ok(micro + macro + hybridPool > 0, 'the named stages took no time');
    assert.ok(Math.abs(micro + macro + hybridPool + other - 100) < 0.5, `shares sum to ${micro + macro + hybridPool + other}`);
  }
  assert.equal(heur.stagesMs.paths.mean, 0, 'the heuristic decodes its paths inside its scorer stage');
  assert.equal(trained.scorer, 'dualg-gnn');
  assert.match(trained.skipped ?? '', /no trained GNN/);
  assert.ok(r.peakRssMB > 0 && r.loadAvg.start.length === 3);
  assert.match(formatDualgBench(r), /dualg: 6 searches/);

  const again = await benchDualg(await demoBenchCorpus('tiny', { cacheDir }), { queries: 2, warmup: 0, cacheDir });
  assert.equal(again.build.engineFromCache, true);
  assert.equal(again.build.graphFromCache, true);
  assert.deepEqual(again.graph, r.graph);
});

test('the command: JSON report to --out; --preset and --bench together refused', async () => {
  const out = path.join(tmp, 'report.json');
  const logged: string[] = [];
  const log = console.log;
  const write = process.stderr.write.bind(process.stderr);
  console.log = (s: string) => logged.push(s);
  process.stderr.write = () => true;
  try {
    await command.run({ values: { preset: 'tiny', queries: '3', scorers: 'dualg', seed: 'x', out, json: true }, positionals: [] }, commandContext());
  } finally {
    console.log = log;
    process.stderr.write = write;
  }
  const printed = JSON.parse(logged.join('\n'));
  const written = JSON.parse(fs.readFileSync(out, 'utf8'));
  assert.equal(written.corpus.label, 'demo:tiny');
  assert.equal(printed.scorers[0].queries, 3);
  assert.equal(written.backend, 'offline');
  await assert.rejects(
    command.run({ values: { preset: 'tiny', bench: '2wiki', queries: '3', scorers: 'dualg' }, positionals: [] }, commandContext()),
    /exactly one of --preset and --bench/,
  );
});
