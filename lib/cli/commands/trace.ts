/**
 * `kf trace <run> <question-id>`: one question's trace, readable. It opens with
 * what the record says (question, gold, prediction, scores in %, recall, error),
 * then DualG's decoded paths when the searches traced any, then every event
 * (model call, tool call and result, search, pool merge, judge verdict, forced
 * stop, times) from traces/<id>.json or traces.jsonl of a run folder.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CommandSpec } from '../command';
import { bool, int, str } from '../command';
import { afterBlocks, formatTrace } from '../../report/trace-format';
import { traceFileName } from '../../run/records';
import { loadRun, resolveRunDir } from '../../run/results';
import type { TraceEvent } from '../../pipeline/types';
import { KfError } from '../../util/errors';
import { didYouMean } from '../../util/did-you-mean';

/** The stored trace of a question in a run folder (file per question, or the jsonl line). */
export function readTrace(runDir: string, id: string): Record<string, unknown> {
  const file = path.join(runDir, 'traces', traceFileName(id));
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'));
  const jsonl = path.join(runDir, 'traces.jsonl');
  if (fs.existsSync(jsonl)) {
    let found: Record<string, unknown> | undefined;
    for (const line of fs.readFileSync(jsonl, 'utf8').split('\n')) {
      if (!line.includes(JSON.stringify(id))) continue;
      try {
        const doc = JSON.parse(line);
        if (doc.id === id) found = doc; // the last one wins (a resumed run rewrote it)
      } catch {
        /* a cut last line */
      }
    }
    if (found) return found;
  }
  const ids = fs.existsSync(path.join(runDir, 'records.jsonl')) ? loadRun(runDir).records.map((r) => r.id) : [];
  const near = ids.includes(id) ? undefined : didYouMean(id, ids);
  throw new KfError(
    'trace_missing',
    `run ${runDir} has no trace for question ${id}`,
    near
      ? `did you mean "${near}"?`
      : ids.includes(id)
        ? 'the question was recorded without a trace: output.traces was "off" for this run'
        : 'check the question id (records.jsonl lists them) and that output.traces was not "off"',
    { concerns: id },
  );
}

const pct = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? (100 * x).toFixed(1) : String(x));
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The opening lines: what the question's record says (question, gold, prediction, scores), then DualG's paths. */
export function traceHeader(runDir: string, id: string, doc: Record<string, unknown>, width = 140): string[] {
  const rec = fs.existsSync(path.join(runDir, 'records.jsonl')) ? loadRun(runDir).records.find((r) => r.id === id) : undefined;
  const out: string[] = [];
  if (rec) {
    const prediction = String(rec.prediction ?? '').replace(/\s*\n\s*/g, ' / ');
    out.push(`question    ${rec.question ?? '?'}`);
    out.push(`gold        ${typeof rec.gold === 'string' ? rec.gold : JSON.stringify(rec.gold)}`);
    out.push(`final       ${rec.finalAnswer ?? '(none)'}`);
    out.push(`prediction  ${clip(prediction, width - 12)}`);
    const scores = Object.entries(rec.scores ?? {}).map(([k, v]) => `${k} ${pct(v)}`);
    out.push(`scores      ${scores.join('  ') || '(none)'}  (in %)`);
    const recall = Object.entries((rec.retrieval ?? {}) as Record<string, unknown>)
      .filter(([, v]) => typeof v === 'number')
      .map(([k, v]) => `${k} ${pct(v)}`);
    if (recall.length) out.push(`retrieval   ${recall.join('  ')}  (in %)`);
    if (rec.error) out.push(`error       ${JSON.stringify(rec.error)}`);
  } else out.push(`(no record of ${id} in ${path.join(runDir, 'records.jsonl')}: the trace only)`);
  for (const b of afterBlocks((doc.events ?? []) as TraceEvent[]))
    out.push(`${b.title} (${b.label}):`, ...b.text.split('\n').map((l) => `  ${clip(l, width - 2)}`));
  return out;
}

export const command: CommandSpec = {
  name: 'trace',
  group: 'evaluate',
  summary: "Print one question's record (question, gold, prediction, scores), DualG's decoded paths, and its trace (calls, tools, searches, judge, times)",
  positionals: [
    { name: 'run', description: 'run folder or run id (results/, results/runs/, results/<job>/runs/ as kf demo prints them)', required: true },
    { name: 'question', description: 'question id', required: true },
  ],
  options: {
    json: { type: 'boolean', description: 'print the stored trace as JSON' },
    results: { type: 'string', description: 'folder holding run folders (default results/; its runs/ and <job>/runs/ are searched too)' },
    width: { type: 'string', default: '140', description: 'characters per line' },
  },
  examples: ['kf trace demo-M5-full-8f2f69e0 demo-0002', 'kf trace results/demo-M5-full-8f2f69e0 demo-0002 --json'],
  async run(args) {
    const [run, id] = args.positionals;
    const results = str(args, 'results');
    const dir = resolveRunDir(run, results ? path.resolve(results) : undefined);
    const doc = readTrace(dir, id);
    if (bool(args, 'json')) console.log(JSON.stringify(doc, null, 2));
    else {
      for (const line of traceHeader(dir, id, doc, int(args, 'width'))) console.log(line);
      console.log('');
      console.log(formatTrace(doc as Parameters<typeof formatTrace>[0], { width: int(args, 'width') }));
    }
  },
};
