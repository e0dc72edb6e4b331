/**
 * How well does the OFFLINE synthesizer (lib/knowforge/offline/synth.ts) + checker
 * read the evidence it is given? A measurement tool for whoever works on the
 * offline policies. Numbers are offline: not model results.
 *
 * Two steps, so that iterating on the policies takes seconds, not minutes:
 *
 *  1. capture: run an experiment once through `runExperiment` (retrieval, pool,
 *     synth, checker, scoring as in any run) and record every synthesizer task
 *     (question + numbered materials + notes) with the question and its record
 *     into a JSONL file (default .kf-cache/offline-qa/<name>.jsonl). Retrieval
 *     does not depend on the synthesizer, so the capture stays valid while the
 *     offline answering code changes.
 *  2. evaluate (default): answer every captured task again with the CURRENT
 *     offline code (synthReply -> checkFinal -> the benchmark's scorer) and print
 *     EM/F1 overall and by type / format / modality / hops, answer-visible share,
 *     and the failures where the gold answer is visible in the materials but the
 *     prediction is wrong (with the evidence the policy cited), to see WHY.
 *
 *   node --import tsx lib/knowforge/scripts/offline-qa-eval.ts --experiment knowforge/demo/P1 [--capture] [--limit N]
 *   node --import tsx lib/knowforge/scripts/offline-qa-eval.ts --benchmark hotpotqa [--capture] [--limit N]
 *   node --import tsx lib/knowforge/scripts/offline-qa-eval.ts --run results/demo-one-shot/runs/demo-S3-... (a finished run's records, as scored)
 *   options: --failures N (default 25) --show-all --by type,format,modality,hops --json --file <capture.jsonl> --id <qid prefix> --explain (candidates)
 *
 * --benchmark builds an experiment object (pipeline S3 unless --pipeline, index
 * {build: "ensure", embedder: "fitted", dir: ".kf-cache/index/<benchmark>"}).
 * Capture writes its run folder under the OS temp dir (not into results/).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scriptArgs } from '../../util/script-args';
import type { Question } from '../../bench/types';
import { scoreAnswer } from '../../eval/score';
import { answerVisible } from '../../eval/retrieval';
import { conventionFor } from '../../answer/conventions';
import { formatFinalValue } from '../../answer/final-answer';
import { checkFinal } from '../offline/checker';
import { extractAnswer, synthReply } from '../offline/synth';
import { explainRead } from '../offline/reader';
import type { SynthTask } from '../offline/tasks';
import type { ChatModel, Stage } from '../../model-api/types';
import { experimentFromObject, loadExperiment, type ResolvedExperiment } from '../../run/config';
import { loadConfiguredBenchmark } from '../../run/questions';
import { readRecords, type RunRecord } from '../../run/records';
import { runExperiment, type RunnerRouter } from '../../run/runner';
import { experimentRouter } from '../../run/experiment-router';
import { KfError, errorMessage } from '../../util/errors';
import { repoRoot } from '../../util/paths';

/** One captured synthesizer input with what scoring needs. */
interface Captured {
  question: Question;
  task: SynthTask;
  /** The record the capture run wrote (buckets, retrieval, its final answer). */
  buckets: Record<string, string[]>;
  retrieval: Record<string, number> | null;
  capturedFinal: string | null;
}

interface Row {
  id: string;
  question: string;
  gold: string | string[] | null;
  final: string;
  scores: Record<string, number>;
  buckets: Record<string, string[]>;
  visible: number | undefined;
  evidence?: string;
}

function experimentFor(args: { experiment?: string; benchmark?: string; pipeline?: string; limit?: number }): ResolvedExperiment {
  if (args.experiment) {
    return loadExperiment(args.experiment, { overrides: args.limit ? [`limits.maxQuestions=${args.limit}`] : [] });
  }
  const b = args.benchmark!;
  return experimentFromObject(
    {
      name: `offline-qa-${b}-${(args.pipeline ?? 'S3').toLowerCase()}`,
      benchmark: { name: b },
      pipeline: { name: args.pipeline ?? 'S3' },
      index: { build: 'ensure', embedder: 'fitted', dir: `.kf-cache/index/${b}` },
      ...(args.limit ? { limits: { maxQuestions: args.limit } } : {}),
    },
    { baseDir: repoRoot(), name: `offline-qa-${b}` },
  );
}

/** A router that hands out the normal models, but records every synthesizer task on the way. */
function tappingRouter(exp: ResolvedExperiment, runId: string, onSynth: (questionId: string, task: SynthTask) => void): RunnerRouter {
  const inner = experimentRouter(exp.config, runId);
  return {
    describe: () => inner.describe(),
    ledger: inner.ledger,
    embedder: () => inner.embedder(),
    close: () => inner.close(),
    forStage(stage: Stage): ChatModel {
      const m = inner.forStage(stage);
      if (stage !== 'synth') return m;
      return {
        id: m.id,
        backend: m.backend,
        chat: (req, signal) => {
          if (req.task && req.questionId) onSynth(req.questionId, req.task as SynthTask);
          return m.chat(req, signal);
        },
      };
    },
  };
}

async function capture(exp: ResolvedExperiment, file: string): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-offline-qa-'));
  const runId = `capture-${exp.hash.slice(0, 8)}`;
  const tasks = new Map<string, SynthTask>();
  const router = tappingRouter(exp, runId, (id, task) => tasks.set(id, task));
  const started = Date.now();
  const outcome = await runExperiment({ experiment: exp, runId, resultsDir: tmp, router, log: (l) => process.stderr.write(`${l}\n`) });
  await router.close();
  const data = loadConfiguredBenchmark(exp.config).data;
  const byId = new Map(data.questions.map((q) => [q.id, q]));
  const records = readRecords(path.join(outcome.dir, 'records.jsonl')).records;
  const lines: string[] = [];
  for (const r of records) {
    const task = tasks.get(r.id);
    const q = byId.get(r.id);
    if (!task || !q) continue;
    const c: Captured = { question: q, task, buckets: r.buckets, retrieval: r.retrieval, capturedFinal: r.finalAnswer };
    lines.push(JSON.stringify(c));
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, lines.join('\n') + '\n');
  fs.rmSync(tmp, { recursive: true, force: true });
  // The run's own scores, to check that re-answering below reproduces the pipeline.
  const scored = records.filter((r) => typeof r.scores?.f1 === 'number');
  const runF1 = scored.length ? scored.reduce((s, r) => s + r.scores.f1, 0) / scored.length : undefined;
  process.stderr.write(
    `captured ${lines.length} synthesizer task(s) of ${exp.config.name} in ${((Date.now() - started) / 1000).toFixed(1)} s -> ${path.relative(process.cwd(), file)}${runF1 !== undefined ? ` (the run itself scored f1 ${(100 * runF1).toFixed(1)})` : ''}\n`,
  );
}

function readCapture(file: string): Captured[] {
  if (!fs.existsSync(file)) throw new KfError('no_capture', `no capture at ${file}`, 'run this script with --capture first');
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Captured);
}

/** Re-answer captured tasks with the current offline code, exactly as the S3 pipeline does (synth -> checker -> score). */
function reanswer(items: Captured[]): { rows: Row[]; msPerCall: number; maxMs: number; maxChars: number } {
  const rows: Row[] = [];
  let total = 0;
  let maxMs = 0;
  let maxChars = 0;
  for (const c of items) {
    const convention = c.task.convention ?? conventionFor(c.question.benchmark);
    const t0 = performance.now();
    const text = synthReply(c.task);
    const dt = performance.now() - t0;
    total += dt;
    const chars = c.task.materials.reduce((s, m) => s + m.text.length + (m.ocrText?.length ?? 0), 0);
    if (dt > maxMs) {
      maxMs = dt;
      maxChars = chars;
    }
    const final = formatFinalValue(checkFinal({ role: 'checker', question: c.task.question, answer: text, convention }));
    const poolText = c.task.materials.map((m) => [m.caption, m.text, m.ocrText].filter(Boolean).join('\n')).join('\n');
    const ex = extractAnswer(c.task);
    rows.push({
      id: c.question.id,
      question: c.question.question,
      gold: c.question.answer,
      final,
      scores: scoreAnswer(c.question, final),
      buckets: c.buckets,
      visible: answerVisible(c.question, poolText),
      evidence: `${ex.explanation} | ${ex.evidence.map((u) => `${u.ref} ${u.text.slice(0, 160)}`).join(' || ')}`,
    });
  }
  return { rows, msPerCall: total / Math.max(1, items.length), maxMs, maxChars };
}

function rowsFromRun(dir: string): Row[] {
  const recs: RunRecord[] = readRecords(path.join(dir, 'records.jsonl')).records;
  return recs.map((r) => ({
    id: r.id,
    question: r.question,
    gold: r.gold,
    final: r.finalAnswer ?? '',
    scores: r.scores,
    buckets: r.buckets,
    visible: r.retrieval?.answerVisible,
  }));
}

const pct = (x: number) => (100 * x).toFixed(1);

function summarise(rows: Row[], by: string[]): string {
  const out: string[] = [];
  const metric = rows.some((r) => 'f1' in r.scores) ? 'f1' : 'acc';
  const line = (label: string, rs: Row[]) => {
    const em = rs.reduce((s, r) => s + (r.scores.em ?? r.scores.acc ?? 0), 0) / rs.length;
    const f1 = rs.reduce((s, r) => s + (r.scores[metric] ?? 0), 0) / rs.length;
    const vis = rs.filter((r) => r.visible !== undefined);
    const v = vis.length ? pct(vis.filter((r) => r.visible === 1).length / vis.length) : 'n/a';
    const visOk = vis.filter((r) => r.visible === 1);
    const f1Vis = visOk.length ? pct(visOk.reduce((s, r) => s + (r.scores[metric] ?? 0), 0) / visOk.length) : 'n/a';
    const refused = pct(rs.filter((r) => r.scores.refused === 1).length / rs.length);
    return `| ${label.padEnd(26)} | ${String(rs.length).padStart(4)} | ${pct(em).padStart(5)} | ${pct(f1).padStart(5)} | ${v.padStart(7)} | ${f1Vis.padStart(9)} | ${refused.padStart(7)} |`;
  };
  out.push(`| ${'bucket'.padEnd(26)} |    n |    em | ${metric.padStart(5)} | visible | ${metric}|visible | refused |`);
  out.push(`| ${'-'.repeat(26)} | ---: | ----: | ----: | ------: | --------: | ------: |`);
  out.push(line('ALL', rows));
  for (const field of by) {
    const groups = new Map<string, Row[]>();
    for (const r of rows) for (const v of r.buckets?.[field] ?? ['(none)']) (groups.get(v) ?? groups.set(v, []).get(v)!).push(r);
    for (const [v, rs] of [...groups].sort((a, b) => b[1].length - a[1].length)) out.push(line(`${field}=${v}`, rs));
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  const { values } = scriptArgs(__filename, {
    options: {
      experiment: { type: 'string' },
      benchmark: { type: 'string' },
      pipeline: { type: 'string' },
      run: { type: 'string' },
      capture: { type: 'boolean', default: false },
      limit: { type: 'string' },
      file: { type: 'string' },
      failures: { type: 'string', default: '25' },
      'show-all': { type: 'boolean', default: false },
      by: { type: 'string', default: 'type,format,modality,hops' },
      id: { type: 'string' },
      explain: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const by = values
    .by!.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  let rows: Row[];
  let timing = '';
  if (values.run) {
    rows = rowsFromRun(path.resolve(values.run));
  } else {
    if (!values.experiment && !values.benchmark)
      throw new KfError(
        'bad_args',
        'offline-qa-eval: name --experiment <ref>, --benchmark <name> or --run <dir>',
        'e.g. --experiment demo/S3 or --benchmark hotpotqa',
      );
    const limit = values.limit ? Number(values.limit) : undefined;
    if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
      throw new KfError('bad_args', `offline-qa-eval: --limit ${values.limit} is not a positive integer`, 'e.g. --limit 50');
    const label = (values.experiment ?? `${values.benchmark}-${values.pipeline ?? 'S3'}`).replace(/[^A-Za-z0-9._-]+/g, '-');
    const file = path.resolve(values.file ?? path.join(repoRoot(), '.kf-cache', 'offline-qa', `${label}${limit ? `-n${limit}` : ''}.jsonl`));
    if (values.capture || !fs.existsSync(file))
      await capture(experimentFor({ experiment: values.experiment, benchmark: values.benchmark, pipeline: values.pipeline, limit }), file);
    let items = readCapture(file);
    if (values.id) items = items.filter((c) => c.question.id.startsWith(values.id!));
    if (values.explain) {
      for (const c of items) {
        const x = explainRead(c.task);
        const q = x.question;
        console.log(
          `${c.question.id}: ${q.text}\n  gold ${JSON.stringify(c.question.answer)}; type ${q.type}/${q.valueType}${q.typeNoun ? ` (${q.typeNoun})` : ''}; topics ${JSON.stringify(q.topics)}; terms ${q.terms.map((t) => t.word + (t.head ? '*' : '') + (t.typeWord ? '^' : '')).join(' ')}; ${x.facts} facts, ${x.series} series`,
        );
        for (const k of x.candidates)
          console.log(
            `  ${k.supported ? '+' : '-'} ${k.score.toFixed(2)} cov ${k.coverage.toFixed(2)} ${k.hops}h ${k.refs.join('>')} ${JSON.stringify(k.value)} <- ${k.last}`,
          );
      }
      return;
    }
    const r = reanswer(items);
    rows = r.rows;
    timing = `synth: ${r.msPerCall.toFixed(2)} ms per call on average, slowest ${r.maxMs.toFixed(1)} ms (pool ${r.maxChars} chars)`;
  }
  const failures = rows.filter((r) =>
    values['show-all'] ? (r.scores.f1 ?? r.scores.acc ?? 0) < 1 : r.visible === 1 && (r.scores.f1 ?? r.scores.acc ?? 0) < 1,
  );
  if (values.json) {
    console.log(JSON.stringify({ rows, timing }, null, 1));
    return;
  }
  console.log('offline backend: not model results\n');
  console.log(summarise(rows, by));
  if (timing) console.log(`\n${timing}`);
  const n = Number(values.failures);
  console.log(
    `\n${failures.length} ${values['show-all'] ? 'imperfect answers' : 'answers wrong although the gold answer is visible in the materials'}${failures.length > n ? ` (first ${n})` : ''}:`,
  );
  for (const f of failures.slice(0, n)) {
    console.log(
      `- ${f.id} [${(f.buckets?.type ?? []).join(',')}|${(f.buckets?.format ?? []).join(',')}|${(f.buckets?.modality ?? []).join(',')}] ${f.question}`,
    );
    console.log(`    gold: ${JSON.stringify(f.gold)}  pred: ${JSON.stringify(f.final)}  f1=${(f.scores.f1 ?? f.scores.acc ?? 0).toFixed(2)}`);
    if (f.evidence) console.log(`    why: ${f.evidence.slice(0, 400)}`);
  }
}

main().catch((e) => {
  console.error(errorMessage(e));
  process.exit(1);
});
