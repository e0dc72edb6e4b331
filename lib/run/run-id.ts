/** Run ids and the resume command: the same config and subset give the same id, so rerunning a command resumes it. */
import * as path from 'node:path';
import { KfError } from '../util/errors';
import type { ResolvedExperiment } from './config';
import { identityTag } from './run-identity';
import type { StageRoute } from '../models/stage-route';
import { SUBSET_KEYWORDS } from './schema';

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,150}$/;

export function checkRunId(runId: string): string {
  if (!RUN_ID.test(runId) || runId.includes('..')) {
    throw new KfError(
      'bad_run_id',
      `run id "${runId}" is not a plain folder name`,
      'use letters, digits, ".", "_", "+" and "-" (it becomes results/<run-id>/)',
    );
  }
  return runId;
}

/**
 * `<name>-<subset>-<hash8>`: the same config and subset give the same id, so a rerun resumes. With `routes`, a run
 * whose stages are not all offline gets `-<backend>-<hash6 of the stage models>` (lib/run/run-identity.ts): another
 * model is another run, written beside the offline one.
 */
export function defaultRunId(exp: ResolvedExperiment, routes?: readonly Pick<StageRoute, 'stage' | 'backend' | 'model'>[]): string {
  const subset = exp.config.benchmark.subset;
  const tag = (SUBSET_KEYWORDS as readonly string[]).includes(subset) ? (subset === 'all' ? 'full' : subset) : path.basename(subset).replace(/\.[^.]+$/, '');
  const sample = exp.config.benchmark.sample ? `-n${exp.config.benchmark.sample.n}` : '';
  return `${exp.config.name}-${tag}${sample}-${exp.hash.slice(0, 8)}${routes ? identityTag(routes) : ''}`.replace(/[^A-Za-z0-9._+-]+/g, '_');
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The command that builds what the experiment needs on purpose (its index with model calls, artifacts): estimate first. */
export function prepareCommandFor(exp: ResolvedExperiment): string {
  const rel = exp.file ? path.relative(process.cwd(), exp.file) : '<experiment>';
  const file = exp.file && !rel.startsWith('..') ? rel : (exp.file ?? '<experiment>');
  return ['kf prepare', shellQuote(file), ...exp.overrides.map((o) => `--override ${shellQuote(o)}`)].join(' ');
}

export function resumeCommandFor(exp: ResolvedExperiment, runId: string): string {
  const rel = exp.file ? path.relative(process.cwd(), exp.file) : '<experiment>';
  const file = exp.file && !rel.startsWith('..') ? rel : (exp.file ?? '<experiment>');
  return ['kf run', shellQuote(file), '--run-id', shellQuote(runId), ...exp.overrides.map((o) => `--override ${shellQuote(o)}`)].join(' ');
}
