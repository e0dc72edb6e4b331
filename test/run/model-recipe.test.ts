/**
 * Issue 32's "done when", tried as a new user would, with a scripted OpenAI-compatible server in the
 * environment (the README's "Using a real model" recipe): after an offline run of the main job's
 * kinds of rows (closed book S0, KnowForge S4, DualG), the model recipe
 *   - is refused by the run before any index-building model call (the index must be prepared),
 *   - builds the index and DualG's graph only through `kf prepare` (estimate first),
 *   - writes new runs beside the offline ones (ids named by the models), none holding an offline
 *     record, manifests saying openai, and makes no index-building call of its own,
 *   - and SUMMARY.md lists the run's departures from the paper.
 * The offline runs are left byte for byte as they were.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { demoPresetOverrides } from '../../lib/bench/benchmarks/demo';
import { parsePattern } from '../../lib/dualg/offline/pattern';
import { ScriptedServer, type RecordedRequest, type ScriptedReply } from '../../lib/models/testing/scripted-server';
import { loadExperiment } from '../../lib/run/config';
import { prepareExperiment } from '../../lib/run/prepare';
import { readRecords } from '../../lib/run/records';
import { readRunManifest } from '../../lib/run/manifest';
import { runSuite } from '../../lib/report/suite';
import { repoRoot } from '../../lib/util/paths';
import { KfError } from '../../lib/util/errors';
import { ownScratch, tinyDemoWorld } from '../_shared/scratch';
import { nonEmpty } from '../_shared/non-empty';
import { questionFinder, type Q } from './demo-model.helper';
import { withEnv } from '../_shared/env';

const EXPERIMENTS = ['demo/S0.toml', 'demo/S4.toml', 'dualg/demo/DG-heuristic.toml'].map((f) => path.join(repoRoot(), 'experiments', f));
const INDEX_MODELS = new Set(['ext', 'rel', 'oie', 'cap']);

function suiteFile(dir: string): string {
  const file = path.join(dir, 'recipe-suite.toml');
  fs.writeFileSync(
    file,
    [
      'name = "recipe"',
      'description = "closed book, KnowForge one-shot and DualG on the tiny demo world"',
      `experiments = [${EXPERIMENTS.map((e) => JSON.stringify(e)).join(', ')}]`,
      'reference = "demo-S4"',
      'metric = "f1"',
      'resamples = 200',
    ].join('\n'),
  );
  return file;
}

/** A model that answers every stage well enough to run (by the model name each stage is routed to). */
function replyFor(questions: Q[]): (req: RecordedRequest) => ScriptedReply {
  const find = questionFinder(questions);
  return (req) => {
    switch (req.model) {
      case 'ext':
        return { text: '{"points": []}' };
      case 'rel':
        return { text: '{"relations": []}' };
      case 'oie':
        return { text: '{"triples": []}' };
      case 'cap':
      case 'vis':
        return { text: '{"facts": []}' };
      case 'pat': {
        const q = find(req)?.q;
        return { text: JSON.stringify(parsePattern({ role: 'pattern', question: q?.question ?? 'What?', maxImages: 4 })) };
      }
      default: {
        const answer = find(req)?.q.answer ?? 'unknown';
        return req.body.response_format ? { text: JSON.stringify({ final: answer }) } : { text: `From [1].\nFINAL ANSWER: ${answer}` };
      }
    }
  };
}

const MODEL_ENV = {
  OPENAI_API_KEY: 'sk-recipe',
  KF_MODEL: 'ans',
  KF_EXTRACTION_MODEL: 'ext',
  KF_RELATIONS_MODEL: 'rel',
  KF_OPENIE_MODEL: 'oie',
  KF_CAPTION_MODEL: 'cap',
  KF_VISION_MODEL: 'vis',
  KF_PATTERN_MODEL: 'pat',
  KF_MAX_ATTEMPTS: '1',
};

const runDirs = (out: string) => (fs.existsSync(path.join(out, 'runs')) ? fs.readdirSync(path.join(out, 'runs')).sort() : []);

test('the model recipe after an offline run: new runs, no unasked index build, departures in SUMMARY', { timeout: 15 * 60_000 }, async () => {
  const world = await tinyDemoWorld();
  const questions = JSON.parse(fs.readFileSync(path.join(world.dir, 'questions.json'), 'utf8')) as Q[];
  const out = ownScratch('kf-recipe-');
  // Its own artifact store: the DualG graph is built here, by this test's models (never reused from another run).
  process.env.KF_ARTIFACTS = path.join(out, 'artifacts');
  const suite = suiteFile(out);
  const overrides = [...demoPresetOverrides('tiny', world.dir, { indexDir: path.join(out, 'index') }).overrides, 'models.cache.mode=off'];
  const opts = { out, limit: 4, overrides, formats: ['html' as const], log: () => undefined };

  // 1. Offline first (the quickstart's main job, in small).
  const offline = await runSuite(suite, opts);
  assert.equal(offline.backend, 'offline');
  const offlineRuns = runDirs(out);
  assert.equal(offlineRuns.length, 3);
  const offlineBytes = new Map(offlineRuns.map((r) => [r, fs.readFileSync(path.join(out, 'runs', r, 'records.jsonl'))]));

  const server = await ScriptedServer.start();
  try {
    server.on({ reply: replyFor(questions) });
    await withEnv({ ...MODEL_ENV, OPENAI_BASE_URL: server.url }, async () => {
      // 2. The run alone is refused before any index-building call (S0, closed book, may already have answered).
      await assert.rejects(
        runSuite(suite, opts),
        (e: unknown) => e instanceof KfError && e.code === 'index_build_needs_models' && /kf prepare .*S4\.toml/.test(e.hint),
      );
      assert.equal(server.requests.filter((r) => INDEX_MODELS.has(r.model ?? '')).length, 0, 'no index-building call nobody asked for');

      // 3. The recipe's prepare steps: the index and DualG's graph, built by the models on purpose.
      const lines: string[] = [];
      const err = console.error;
      console.error = (l: string) => void lines.push(String(l));
      try {
        for (const f of EXPERIMENTS.slice(1)) await prepareExperiment(loadExperiment(f, { overrides }), { yes: true, log: () => undefined });
      } finally {
        console.error = err;
      }
      assert.match(lines.join('\n'), /estimate: about \d+ model calls/);
      const built = server.requests.filter((r) => INDEX_MODELS.has(r.model ?? '')).length;
      assert.ok(built > 0, 'prepare called the extraction (and OpenIE) models');
      assert.ok(
        server.requests.some((r) => r.model === 'oie'),
        "DualG's OpenIE went through its model stage",
      );

      // 4. The main job again: new runs beside the offline ones, no index-building call of its own.
      const model = await runSuite(suite, opts);
      assert.deepEqual(model.incomplete, []);
      assert.equal(server.requests.filter((r) => INDEX_MODELS.has(r.model ?? '')).length, built, 'the runs built nothing');
      const newRuns = runDirs(out).filter((r) => !offlineRuns.includes(r));
      assert.equal(newRuns.length, 3, `new runs beside the offline ones: ${runDirs(out).join(', ')}`);
      for (const r of nonEmpty(newRuns, 'model runs')) {
        assert.match(r, /-openai-[0-9a-f]{6}$/);
        const m = readRunManifest(path.join(out, 'runs', r))!;
        assert.equal(m.backend, 'openai', `${r}: manifest backend`);
        const recs = readRecords(path.join(out, 'runs', r, 'records.jsonl')).records;
        for (const rec of nonEmpty(recs, `${r} records`)) assert.notEqual(rec.backend, 'offline', `${r}/${rec.id} is a model answer`);
        // Closed book with every stage on the model departs from nothing; the others name their stand-ins.
        if (/^demo-S0-/.test(r)) assert.deepEqual(m.departures, [], `${r}: a closed-book model run has no stand-in`);
        else assert.ok(m.departures?.length, `${r} lists its departures`);
      }
      const summary = fs.readFileSync(path.join(out, 'SUMMARY.md'), 'utf8');
      assert.match(summary, /## Departures from the paper/);
      assert.match(summary, /fitted embedder instead of an embeddings endpoint/);
      assert.match(summary, /DualG: .*from offline rules/, 'what DualG still ran on rules (alignment, equivalence without an embeddings endpoint)');
    });
  } finally {
    await server.close();
  }
  for (const [r, bytes] of offlineBytes) assert.ok(fs.readFileSync(path.join(out, 'runs', r, 'records.jsonl')).equals(bytes), `${r} untouched`);
  delete process.env.KF_ARTIFACTS;
  fs.rmSync(out, { recursive: true, force: true });
});
