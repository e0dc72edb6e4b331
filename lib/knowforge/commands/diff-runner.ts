/**
 * `kf diff-runner`: the released KnowForge runner and the harness in runner mode against one scripted
 * model and one `kf serve kb`, question by question; prints, per question, whether every model request
 * is identical and, for the first question that differs, the first differing request as a diff.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { int, isPositiveInt, list, str, type CommandSpec } from '../../pipeline/command';
import { benchDir } from '../../util/paths';
import { KfError } from '../../util/errors';
import { runComparison } from './runner-diff/comparison';
import { scriptedReply } from './runner-diff/scripted-model';
import { ScriptedServer } from '../../models/testing/scripted-server';
import { runnerUnavailable } from './runner-diff/released-runner';
import { RUNNER_MODES, type RunnerModeName } from '../runner-mode/pipeline';

/** The scripted model alone, until SIGINT/SIGTERM (its replies: lib/knowforge/commands/runner-diff/scripted-model.ts). */
async function serveModel(port: number): Promise<number> {
  const model = await ScriptedServer.start({ port });
  model.on({ match: () => true, reply: (req) => scriptedReply(req) });
  console.log(`scripted model at ${model.url} (offline backend: not model results); Ctrl-C stops`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  console.log(`${model.requests.length} requests answered`);
  await model.close();
  return 0;
}

const DEFAULT_EVAL = path.join('..', 'shared', 'reference', 'MMLongBench-Doc');

export const command: CommandSpec = {
  name: 'diff-runner',
  group: 'run',
  summary: "Compare the harness's runner mode with the released KnowForge runner, request for request (scripted model, kf serve kb)",
  options: {
    bench: { type: 'string', default: 'mmlb', choices: ['mmlb'], description: 'benchmark (MMLongBench-Doc, per-document packages)' },
    config: { type: 'string', multiple: true, description: `configuration(s): ${RUNNER_MODES.join(' | ')} (default S4)` },
    limit: { type: 'string', default: '12', validate: isPositiveInt, description: 'questions, from the smallest documents up' },
    doc: { type: 'string', multiple: true, description: 'also every question of this document (repeatable), e.g. watch_d.pdf (figures: read_media runs)' },
    runner: { type: 'string', description: 'your knowforge-bench checkout (default ../shared/reference/knowforge-bench or $KF_KNOWFORGE_BENCH)' },
    'mmlb-eval': {
      type: 'string',
      description:
        "MMLongBench-Doc's checkout: the scores are compared too (the runner's scorer and kf score, judge = the scripted model); default ../shared/reference/MMLongBench-Doc when present",
    },
    'serve-model': {
      type: 'string',
      validate: isPositiveInt,
      description:
        "only serve the comparison's scripted OpenAI-compatible model on this port (127.0.0.1) until stopped: point the released runner's config at it by hand",
    },
    work: { type: 'string', description: 'scratch folder (the index is built once into it); default the OS temp folder' },
  },
  examples: [
    'kf diff-runner --bench mmlb --config S4 --limit 12',
    'kf diff-runner --config M5 --config P0 --limit 12 --doc watch_d.pdf',
    'kf diff-runner --config M5 --limit 3 --runner ../knowforge-bench',
  ],
  async run(args, ctx) {
    const port = int(args, 'serve-model');
    if (port) return serveModel(port);
    const checkout = path.resolve(str(args, 'runner') ?? process.env.KF_KNOWFORGE_BENCH ?? path.join('..', 'shared', 'reference', 'knowforge-bench'));
    const why = runnerUnavailable(checkout);
    if (why) throw new KfError('runner_unavailable', why, 'pass --runner <your knowforge-bench checkout> and install python3-requests');
    const modes = (list(args, 'config').length ? list(args, 'config') : ['S4']) as RunnerModeName[];
    for (const m of modes) if (!RUNNER_MODES.includes(m)) throw new KfError('bad_flag', `--config ${m}: not one of ${RUNNER_MODES.join(', ')}`, 'pick one');
    const results = await runComparison({
      checkout,
      benchDir: benchDir('mmlongbench-doc'),
      mmlbRepo: str(args, 'mmlb-eval') ?? (fs.existsSync(path.join(DEFAULT_EVAL, 'eval', 'eval_score.py')) ? DEFAULT_EVAL : undefined),
      modes,
      limit: int(args, 'limit') ?? 12,
      docs: list(args, 'doc'),
      work: path.resolve(str(args, 'work') ?? path.join(os.tmpdir(), 'kf-diff-runner')),
      models: ctx.models,
      log: (l) => console.log(l),
    });
    const scoredApart = (r: (typeof results)[number]) => r.scores !== undefined && new Set(Object.values(r.scores)).size !== 1;
    const bad = results.filter((r) => r.first || r.harnessResponse !== r.runnerResponse || scoredApart(r));
    for (const m of modes) {
      const rs = results.filter((r) => r.mode === m);
      const same = rs.filter((r) => !r.first && r.harnessResponse === r.runnerResponse).length;
      console.log(`${m}: ${same}/${rs.length} questions identical (every request and the final answer)`);
    }
    const first = bad[0];
    if (first) {
      console.log(`\nfirst difference: ${first.mode} ${first.qid} (${first.doc})`);
      if (first.first) console.log(`request ${first.first.index + 1} (- runner, + harness):\n${first.first.diff}`);
      else if (first.harnessResponse !== first.runnerResponse) console.log(`final answers differ:\n- ${first.runnerResponse}\n+ ${first.harnessResponse}`);
      else console.log(`scores differ: ${JSON.stringify(first.scores)}`);
    }
    return bad.length ? 1 : 0;
  },
};
