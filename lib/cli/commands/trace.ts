/**
 * `kf trace <run> <question-id>`: one question's trace, readable (every model
 * call, tool call and result, search, pool merge, judge verdict, forced stop,
 * times), from traces/<id>.json or traces.jsonl of a run folder.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CommandSpec } from '../command';
import { bool, int, str } from '../command';
import { formatTrace } from '../../knowforge/trace-format';
import { traceFileName } from '../../run/records';
import { resolveRunDir } from '../../run/results';
import { KfError } from '../../util/errors';

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
  throw new KfError(
    'trace_missing',
    `run ${runDir} has no trace for question ${id}`,
    'check the question id (records.jsonl lists them) and that output.traces was not "off"',
    { concerns: id },
  );
}

export const command: CommandSpec = {
  name: 'trace',
  group: 'evaluate',
  summary: "Print one question's trace readably (model calls, tools, searches, pool merges, judge, forced stops, times)",
  positionals: [
    { name: 'run', description: 'run folder or run id under results/', required: true },
    { name: 'question', description: 'question id', required: true },
  ],
  options: {
    json: { type: 'boolean', description: 'print the stored trace as JSON' },
    width: { type: 'string', default: '140', description: 'characters per line' },
  },
  examples: ['kf trace demo-M5-full-8f2f69e0 demo-0002', 'kf trace results/demo-M5-full-8f2f69e0 demo-0002 --json'],
  async run(args) {
    const [run, id] = args.positionals;
    const dir = resolveRunDir(run);
    const doc = readTrace(dir, id);
    if (bool(args, 'json')) console.log(JSON.stringify(doc, null, 2));
    else console.log(formatTrace(doc as Parameters<typeof formatTrace>[0], { width: int(args, 'width') }));
    void str;
  },
};
