/**
 * The released runner, run from a temporary copy of the user's checkout: its package and data files
 * generated into the copy (MMLongBench-Doc questions from the harness's benchmark folder, the package
 * map from the checkout's own data/, the benchmark's eval code linked from its checkout), a config
 * pointing every endpoint at the comparison's servers, one process per configuration (one worker).
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError } from '../../../util/errors';

export interface RunnerCopy {
  dir: string;
  config: string;
}

export interface RunnerSample {
  doc_id: string;
  question: string;
  answer?: unknown;
  [k: string]: unknown;
}

/** Why the released runner cannot run here, or undefined when it can (python3 with requests). */
export function runnerUnavailable(checkout: string): string | undefined {
  if (!fs.existsSync(path.join(checkout, 'kfbench', 'run.py'))) return `no knowforge-bench checkout at ${checkout}`;
  const r = spawnSync('python3', ['-c', 'import requests, tomllib'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return 'python3 (3.11+) with the requests package is not available (Debian: apt install python3-requests)';
  return undefined;
}

export function prepareRunner(o: {
  checkout: string;
  into: string;
  samples: RunnerSample[];
  modelUrl: string;
  kbUrl: string;
  kbKey: string;
  mmlbRepo?: string;
}): RunnerCopy {
  const dir = path.join(o.into, 'knowforge-bench');
  fs.cpSync(path.join(o.checkout, 'kfbench'), path.join(dir, 'kfbench'), { recursive: true, filter: (s) => !s.includes('__pycache__') });
  fs.mkdirSync(path.join(dir, 'data', 'mmlongbench_doc'), { recursive: true });
  fs.copyFileSync(path.join(o.checkout, 'data', 'kb_packages.json'), path.join(dir, 'data', 'kb_packages.json'));
  fs.writeFileSync(path.join(dir, 'data', 'mmlongbench_doc', 'samples.json'), JSON.stringify(o.samples));
  if (o.mmlbRepo) {
    fs.mkdirSync(path.join(dir, 'data', 'vendor'), { recursive: true });
    fs.symlinkSync(path.resolve(o.mmlbRepo), path.join(dir, 'data', 'vendor', 'MMLongBench-Doc'));
  }
  const ep = (name: string) => `[${name}]\nbase_url = "${o.modelUrl}"\nmodel = "scripted"\n`;
  const config = path.join(dir, 'config.toml');
  fs.writeFileSync(
    config,
    `data_dir = "data"\n${ep('model')}\n${ep('vision')}\n${ep('judge')}\n[kb]\nbase_url = "${o.kbUrl}"\napi_key = "${o.kbKey}"\npackages_file = "data/kb_packages.json"\n`,
  );
  return { dir, config };
}

function python(cwd: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('python3', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

/** `answer` over the first `limit` questions, one worker (questions one after another); returns qid -> record. */
export async function runnerAnswers(copy: RunnerCopy, mode: string, limit: number, out: string): Promise<Record<string, Record<string, unknown>>> {
  const r = await python(copy.dir, [
    '-m',
    'kfbench.run',
    'answer',
    '--config',
    copy.config,
    '--bench',
    'mmlb',
    '--mode',
    mode,
    '--limit',
    String(limit),
    '--workers',
    '1',
    '--out',
    out,
  ]);
  const file = path.resolve(copy.dir, out);
  if (r.code !== 0 || !fs.existsSync(file))
    throw new KfError('runner_failed', `the released runner failed (${mode}): ${r.out.slice(-600)}`, 'see its output above');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
}

/** The runner's scorer over an answers file: qid -> score (its judged file). */
export async function runnerScores(copy: RunnerCopy, answers: string): Promise<Map<string, number>> {
  const r = await python(copy.dir, ['-m', 'kfbench.run', 'score', '--config', copy.config, '--bench', 'mmlb', '--answers', answers]);
  const judged = path.resolve(copy.dir, answers.endsWith('_answers.json') ? answers.replace('_answers.json', '_judged.json') : `${answers}.judged.json`);
  if (!fs.existsSync(judged)) throw new KfError('runner_failed', `the runner's scorer wrote nothing: ${r.out.slice(-600)}`, 'see its output');
  const rows = JSON.parse(fs.readFileSync(judged, 'utf8')) as { qid: string; score: number }[];
  return new Map(rows.map((x) => [x.qid, Number(x.score)]));
}
