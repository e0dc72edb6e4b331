/**
 * The runner comparison (issue 31): the released runner and the harness in runner mode, against ONE
 * scripted model server (replies a deterministic function of the request; every request recorded)
 * and ONE `kf serve kb` over per-document indexes of MMLongBench-Doc PDFs, question by question:
 * the model requests of each side, the first one that differs, and the final answers.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ModelRouter } from '../../../models/router';
import type { CommandContext } from '../../../pipeline/command';
import { ScriptedServer } from '../../../models/testing/scripted-server';
import { planServe, type ServePlan } from '../../../serve-kb/plan';
import { startKbServer } from '../../../serve-kb/server';
import { KfError } from '../../../util/errors';
import { repoRoot } from '../../../util/paths';
import { httpKbApi } from '../../runner-mode/kb-api';
import { answerRunnerMode, type RunnerModeName } from '../../runner-mode/pipeline';
import { firstDifference, splitByQuestion, type Body, type FirstDifference } from './compare';
import { prepareRunner, runnerAnswers, runnerScores, type RunnerCopy, type RunnerSample } from './released-runner';
import { judgePredictions, questionsFor, type PredictionLine } from '../../../eval/score-file';
import { readBenchmarkExtractionPrompt } from '../../../eval/metrics/mmlongbench-judge';
import { scriptedReply } from './scripted-model';

export interface ComparisonOptions {
  checkout: string;
  /** MMLongBench-Doc's folder (samples and documents). */
  benchDir: string;
  /** MMLongBench-Doc's eval checkout (the runner's scorer), optional. */
  mmlbRepo?: string;
  modes: RunnerModeName[];
  /** Questions to compare (from the smallest documents up). */
  limit: number;
  /** Documents whose questions are compared too (e.g. one with figures, so read_media runs). */
  docs?: string[];
  /** Scratch folder: the index is built once into it and reused. */
  work: string;
  /** Builds the router both sides' harness runs and the scorer use (the command's: CommandContext.models). */
  models: CommandContext['models'];
  log?: (line: string) => void;
}

export interface QuestionComparison {
  mode: RunnerModeName;
  qid: string;
  doc: string;
  runnerRequests: number;
  harnessRequests: number;
  /** The runner's vision requests (read_media) among them. */
  runnerVision: number;
  /** The tools the runner's agents called (from the assistant turns it sent back). */
  runnerTools: string[];
  first?: FirstDifference;
  runnerResponse: string;
  harnessResponse?: string;
  harnessError?: string;
  /** With the benchmark's eval checkout: the runner's scorer and `kf score` (judge: the scripted model) on both sides' answers. */
  scores?: { runnerOnRunner?: number; runnerOnHarness?: number; kfOnRunner?: number; kfOnHarness?: number };
}

/** The first `limit` questions of the smallest documents, then every question of `extra` documents. */
export function pickQuestions(benchDir: string, limit: number, extra: string[] = []): { samples: RunnerSample[]; docs: string[] } {
  const all = JSON.parse(fs.readFileSync(path.join(benchDir, 'samples.dev.json'), 'utf8')) as RunnerSample[];
  const size = (d: string) => {
    const f = path.join(benchDir, 'documents', d);
    return fs.existsSync(f) ? fs.statSync(f).size : Infinity;
  };
  const docs = [...new Set(all.map((s) => s.doc_id))].filter((d) => size(d) < Infinity).sort((a, b) => size(a) - size(b));
  const chosen: string[] = [];
  let n = 0;
  for (const d of docs) {
    if (n >= limit) break;
    chosen.push(d);
    n += all.filter((s) => s.doc_id === d).length;
  }
  for (const d of extra)
    if (!all.some((s) => s.doc_id === d) || size(d) === Infinity)
      throw new KfError('diff_no_doc', `${d}: no MMLongBench-Doc questions or document`, 'name a document of samples.dev.json');
  const samples = [
    ...all.filter((s) => chosen.includes(s.doc_id) && !extra.includes(s.doc_id)).slice(0, limit),
    ...all.filter((s) => extra.includes(s.doc_id)),
  ];
  return { samples, docs: [...new Set(samples.map((s) => s.doc_id))] };
}

/** Build (once) the index of the chosen documents: offline, OCR off. */
export function ensureIndex(benchDir: string, docs: string[], work: string): string {
  const key = docs.join(',');
  const index = path.join(work, 'index');
  const stamp = path.join(work, 'index.docs');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === key) return index;
  const corpus = path.join(work, 'corpus');
  fs.rmSync(corpus, { recursive: true, force: true });
  fs.rmSync(index, { recursive: true, force: true });
  fs.mkdirSync(corpus, { recursive: true });
  for (const d of docs) fs.copyFileSync(path.join(benchDir, 'documents', d), path.join(corpus, d));
  const r = spawnSync(
    process.execPath,
    [
      path.join(repoRoot(), 'bin', 'kf.js'),
      'index',
      'build',
      '--corpus',
      corpus,
      '--bench',
      'mmlongbench-doc',
      '--out',
      index,
      '--offline',
      '--ocr',
      'off',
      '--quiet',
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new KfError('index_failed', `kf index build failed: ${(r.stderr || r.stdout).slice(-500)}`, 'see the build output');
  fs.writeFileSync(stamp, key);
  return index;
}

const bodies = (server: ScriptedServer, from: number, to?: number): Body[] =>
  server.requests
    .slice(from, to)
    .filter((r) => r.kind === 'chat')
    .map((r) => r.body as Body);

/** The harness in runner mode over the questions, one after another: its answers and where each question's requests start. */
async function harnessRun(o: {
  mode: RunnerModeName;
  samples: RunnerSample[];
  plan: ServePlan;
  kbUrl: string;
  key: string;
  model: ScriptedServer;
  router: ModelRouter;
  checkout: string;
}): Promise<{ starts: number[]; responses: (string | undefined)[]; errors: (string | undefined)[] }> {
  const starts: number[] = [];
  const responses: (string | undefined)[] = [];
  const errors: (string | undefined)[] = [];
  for (const [i, s] of o.samples.entries()) {
    const pkg = o.plan.packages.find((p) => p.docs[0]?.file === s.doc_id);
    if (!pkg) throw new KfError('diff_no_package', `no served package for ${s.doc_id}`, 'check the package map');
    starts.push(o.model.requests.length);
    try {
      const a = await answerRunnerMode(
        { bench: 'mmlb', mode: o.mode, kb: httpKbApi(o.kbUrl, pkg.uuid, o.key), model: (stage) => o.router.forStage(stage as never), checkout: o.checkout },
        { id: qidOf(i), question: s.question },
      );
      responses.push(a.response);
      errors.push(undefined);
    } catch (e) {
      responses.push(undefined);
      errors.push((e as Error).message);
    }
  }
  return { starts, responses, errors };
}

/** The tool names in the assistant turns of a question's requests (each turn counted once). */
function toolsCalled(bs: Body[]): string[] {
  const turns = new Set<string>();
  for (const b of bs)
    for (const m of (b.messages as { role?: string; content?: unknown }[] | undefined) ?? [])
      if (m.role === 'assistant' && typeof m.content === 'string') turns.add(m.content);
  const out = new Set<string>();
  for (const t of turns) {
    try {
      const o = JSON.parse(t) as { tool?: unknown };
      if (typeof o.tool === 'string') out.add(o.tool);
    } catch {
      // prose or malformed: no tool
    }
  }
  return [...out].sort();
}

/**
 * The scores of one configuration, four ways: the runner's scorer (its `score` command, judge = the
 * scripted model) on the runner's answers and on the harness's (written into the runner's answers
 * layout), and `kf score`'s judged path (the benchmark's extraction prompt from the eval checkout) on both.
 */
async function compareScores(o: {
  copy: RunnerCopy;
  mode: string;
  records: Record<string, Record<string, unknown>>;
  responses: (string | undefined)[];
  router: ModelRouter;
  mmlbRepo: string;
  rows: QuestionComparison[];
  log: (l: string) => void;
}): Promise<void> {
  const own = `out/${o.mode}_answers.json`;
  const theirs = `out/${o.mode}-harness_answers.json`;
  const harnessRecords = Object.fromEntries(o.rows.map((r, i) => [r.qid, { ...o.records[r.qid], response: o.responses[i] ?? '' }]));
  fs.writeFileSync(path.join(o.copy.dir, theirs), JSON.stringify(harnessRecords));
  const onRunner = await runnerScores(o.copy, own);
  const onHarness = await runnerScores(o.copy, theirs);
  const prompt = readBenchmarkExtractionPrompt(o.mmlbRepo);
  const kf = async (recs: Record<string, Record<string, unknown>>) => {
    const lines: PredictionLine[] = o.rows.map((r, i) => {
      const rec = recs[r.qid] ?? {};
      return {
        line: i + 1,
        id: r.qid,
        response: String(rec.response ?? ''),
        gold: String(rec.gold ?? ''),
        answerFormat: String(rec.answer_format ?? 'Str'),
        question: String(rec.question ?? ''),
      };
    });
    const { scored } = await judgePredictions('mmlongbench-doc', lines, questionsFor('mmlongbench-doc', lines, undefined, 'answers'), {
      judge: o.router.forStage('scorer'),
      extractionPrompt: prompt,
    });
    return new Map(scored.map((x) => [x.id!, x.scores.acc]));
  };
  const kfRunner = await kf(o.records);
  const kfHarness = await kf(harnessRecords);
  for (const r of o.rows)
    r.scores = {
      runnerOnRunner: onRunner.get(r.qid),
      runnerOnHarness: onHarness.get(r.qid),
      kfOnRunner: kfRunner.get(r.qid),
      kfOnHarness: kfHarness.get(r.qid),
    };
  const same = o.rows.filter((r) => new Set(Object.values(r.scores ?? {})).size === 1 && Object.keys(r.scores ?? {}).length === 4).length;
  const above = o.rows.filter((r) => (r.scores?.runnerOnRunner ?? 0) > 0).length;
  o.log(`${o.mode} scores: ${same}/${o.rows.length} questions scored alike four ways (runner's scorer and kf score, on both sides' answers); ${above} above 0`);
}

const qidOf = (i: number) => `full-${String(i).padStart(4, '0')}`;

export async function runComparison(o: ComparisonOptions): Promise<QuestionComparison[]> {
  const log = o.log ?? (() => undefined);
  fs.mkdirSync(o.work, { recursive: true });
  const { samples, docs } = pickQuestions(o.benchDir, o.limit, o.docs);
  log(`${samples.length} questions over ${docs.length} documents: ${docs.join(', ')}`);
  const index = ensureIndex(o.benchDir, docs, o.work);
  const packagesFile = path.join(o.checkout, 'data', 'kb_packages.json');
  const plan = await planServe({ indexes: [index], bench: 'mmlb', packages: packagesFile });
  const key = 'kf-diff-runner';
  const kb = await startKbServer({ packages: plan.packages, key, host: '127.0.0.1', port: 0 });
  const model = await ScriptedServer.start();
  model.on({ match: () => true, reply: (req) => scriptedReply(req) });
  const router = o.models({ defaults: { baseUrl: model.url, model: 'scripted' } }, { env: { OPENAI_API_KEY: 'kf-diff' }, cacheMode: 'off' });
  const run = fs.mkdtempSync(path.join(o.work, 'run-'));
  const copy = prepareRunner({ checkout: o.checkout, into: run, samples, modelUrl: model.url, kbUrl: kb.url, kbKey: key, mmlbRepo: o.mmlbRepo });
  const out: QuestionComparison[] = [];
  try {
    for (const mode of o.modes) {
      const m0 = model.requests.length;
      const records = await runnerAnswers(copy, mode, samples.length, `out/${mode}_answers.json`);
      const m1 = model.requests.length;
      const h = await harnessRun({ mode, samples, plan, kbUrl: kb.url, key, model, router, checkout: o.checkout });
      h.starts.push(model.requests.length);
      const runnerParts = splitByQuestion(
        bodies(model, m0, m1),
        samples.map((s) => s.question),
      );
      for (const [i, s] of samples.entries()) {
        const qid = qidOf(i);
        const runnerBodies = runnerParts[i] ?? [];
        const harnessBodies = bodies(model, h.starts[i], h.starts[i + 1]);
        const c: QuestionComparison = {
          mode,
          qid,
          doc: s.doc_id,
          runnerRequests: runnerBodies.length,
          runnerTools: toolsCalled(runnerBodies),
          runnerVision: runnerBodies.filter((b) => JSON.stringify(b.messages ?? '').includes('"image_url"')).length,
          harnessRequests: harnessBodies.length,
          first: firstDifference(runnerBodies, harnessBodies),
          runnerResponse: String(records[qid]?.response ?? ''),
          harnessResponse: h.responses[i],
          harnessError: h.errors[i],
        };
        log(
          `${mode} ${qid} ${s.doc_id}: ${c.first ? `differs at request ${c.first.index + 1}` : `${c.runnerRequests} requests identical${c.runnerVision ? ` (${c.runnerVision} vision)` : ''}`} [${c.runnerTools.join(' ')}]${c.harnessError ? ` (harness: ${c.harnessError.slice(0, 120)})` : ''}`,
        );
        out.push(c);
      }
      if (o.mmlbRepo) await compareScores({ copy, mode, records, responses: h.responses, router, mmlbRepo: o.mmlbRepo, rows: out.slice(-samples.length), log });
    }
  } finally {
    await router.close().catch(() => undefined);
    await model.close();
    await kb.close();
    fs.rmSync(run, { recursive: true, force: true });
  }
  return out;
}
