/**
 * Running the COMPILED `kf` (bin/kf.js -> dist/) as a child process, and the
 * checks every failing command must pass: the exit code, ONE error line on
 * stderr saying what is wrong and what to do, and no stack trace.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../../lib/util/paths';

const KF_BIN = path.join(repoRoot(), 'bin', 'kf.js');
const DIST_MAIN = path.join(repoRoot(), 'dist', 'lib', 'cli', 'main.js');
/** The runner tests' `slow-fake` pipeline, compiled (the compiled CLI cannot load a .ts module). */
export const SLOW_PIPELINE = path.join(repoRoot(), 'dist', 'test', 'run', 'slow-pipeline.helper.js');

/** Why the compiled CLI cannot be driven here, or undefined when it can. */
export function cannotRunCompiled(): string | undefined {
  if (!fs.existsSync(DIST_MAIN))
    return `the library is not compiled (${path.relative(repoRoot(), DIST_MAIN)} is missing): run \`npm run build\` (npm test builds first)`;
  if (!fs.existsSync(SLOW_PIPELINE)) return `the tests are not compiled (${path.relative(repoRoot(), SLOW_PIPELINE)} is missing): run \`npm run build\``;
  return undefined;
}

export interface KfResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run `node bin/kf.js ...args` (compiled; KF_TSX unset) in `cwd`, with extra environment. */
export function kf(
  args: string[],
  o: { cwd?: string; env?: Record<string, string | undefined>; nodeArgs?: string[]; timeoutMs?: number } = {},
): Promise<KfResult> {
  const env: Record<string, string | undefined> = { ...process.env, KF_TSX: '', KF_DEBUG: '', ...o.env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(o.nodeArgs ?? []), KF_BIN, ...args], {
      cwd: o.cwd ?? os.tmpdir(),
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** stderr lines that are not warnings (a stale-build or data warning may precede an error). */
export function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.trim() && !/^warning:/i.test(l));
}

/** No stack trace, no "internal error", no hint that the error was unexpected (every case here is a KfError or a usage error). */
export function assertNoTrace(r: KfResult, label: string): void {
  assert.doesNotMatch(r.stderr, /^\s+at .+[(:]\d+/m, `${label}: a stack trace on stderr:\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /internal error|unexpected error/, `${label}: not a handled error:\n${r.stderr}`);
}

/**
 * A command-level failure: exit 1 and exactly one line
 * `kf <cmd>: error: <what> -- <what to do>`; returns [what, what to do].
 */
export function assertCommandError(r: KfResult, cmd: string, label = `kf ${cmd}`, o: { afterProgress?: boolean } = {}): [string, string] {
  assertNoTrace(r, label);
  let lines = errorLines(r.stderr);
  if (o.afterProgress) {
    // Commands that report progress on stderr (kf run): the error is the last line, and the only `kf ...` line.
    assert.equal(lines.filter((l) => l.startsWith('kf ')).length, 1, `${label}: expected one error line on stderr:\n${r.stderr}`);
    lines = lines.slice(-1);
  }
  assert.equal(lines.length, 1, `${label}: expected one error line on stderr, got ${lines.length}:\n${r.stderr}`);
  const m = new RegExp(`^kf ${cmd.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: error: (.+?) -- (.+)$`).exec(lines[0]);
  assert.ok(m, `${label}: not of the form "kf ${cmd}: error: <what> -- <what to do>":\n${lines[0]}`);
  assert.equal(r.code, 1, `${label}: exit code (stderr: ${r.stderr})`);
  return [m[1], m[2]];
}

/** A usage failure: exit 2 and exactly one line `kf: <what> ...` that points somewhere (--help, or "-- what to do"). */
export function assertUsageError(r: KfResult, label: string): string {
  assertNoTrace(r, label);
  const lines = errorLines(r.stderr);
  assert.equal(lines.length, 1, `${label}: expected one error line on stderr, got ${lines.length}:\n${r.stderr}`);
  assert.match(lines[0], /^kf: \S/, `${label}: not of the form "kf: ..."`);
  assert.match(lines[0], /--help| -- /, `${label}: says neither where to look nor what to do: ${lines[0]}`);
  assert.equal(r.code, 2, `${label}: exit code (stderr: ${r.stderr})`);
  return lines[0];
}

/** Bytes of every file under a folder, by relative path (to prove nothing changed). */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p).toString('base64');
    }
  };
  walk(dir);
  return out;
}

/** A path no one can write to, even root (sysfs refuses new entries), or undefined when there is none here. */
export function readOnlyPath(): string | undefined {
  const p = path.join('/sys', `kf-test-${process.pid}`);
  try {
    fs.mkdirSync(p);
    fs.rmdirSync(p);
    return undefined;
  } catch {
    return fs.existsSync('/sys') ? p : undefined;
  }
}
