/**
 * Where tests put what they build: under the OS temp folder, never in the
 * checkout (tests leave `git status` clean, ignored files included).
 *
 * The tiny demo world and its fitted index take seconds to build, so the test
 * files of one machine user share one copy under os.tmpdir() instead of each
 * building its own: ensureDemoWorld and ensureIndex reuse what is complete and
 * rebuild what is stale, and are safe when two test files ask at once.
 * Anything a test writes for itself goes into its own mkdtemp folder.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureDemoWorld, type EnsuredDemoWorld } from '../../lib/demo';

/**
 * A path in the shared test folder: KF_TEST_SCRATCH (set by `npm test`: os.tmpdir()/kf-test-<user>, kept across
 * runs while each run's own temp dir is removed) or os.tmpdir()/kf-test-<user>.
 */
export function sharedScratch(...parts: string[]): string {
  const user = typeof process.getuid === 'function' ? String(process.getuid()) : 'user';
  return path.join(process.env.KF_TEST_SCRATCH || path.join(os.tmpdir(), `kf-test-${user}`), ...parts);
}

/** Every file under `dir`, at any depth (what a test greps for leaks). */
export function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** A fresh folder of this test's own (remove it when done). */
export function ownScratch(prefix = 'kf-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** The tiny demo world, generated once in the shared test folder. */
export function tinyDemoWorld(): Promise<EnsuredDemoWorld> {
  return ensureDemoWorld({ preset: 'tiny', dir: sharedScratch('demo-tiny') });
}

/** The index folder tests use for the tiny world (built by `index.build = 'ensure'` on first use). */
export function tinyDemoIndexDir(): string {
  return sharedScratch('index', 'demo-tiny');
}

/** `kf eval retrieval` of the demo benchmark over a demo world folder (its corpus and questions); each test adds its own options. */
export function demoEvalRetrievalArgs(worldDir: string): string[] {
  return ['eval', 'retrieval', '--bench', 'demo', '--corpus', path.join(worldDir, 'corpus'), '--questions', path.join(worldDir, 'questions.json')];
}
