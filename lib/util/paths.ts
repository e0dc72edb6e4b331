import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError } from './errors';

let cachedRoot: string | undefined;

/** The project root: the nearest folder above this file holding our package.json. Works from lib/ (tsx) and dist/lib/ (compiled). */
export function repoRoot(): string {
  if (cachedRoot) return cachedRoot;
  let dir = __dirname;
  for (;;) {
    const pj = path.join(dir, 'package.json');
    if (fs.existsSync(pj)) {
      try {
        if (JSON.parse(fs.readFileSync(pj, 'utf8')).name === 'kf-harness') return (cachedRoot = dir);
      } catch {
        /* keep looking */
      }
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error('kf-harness package.json not found above ' + __dirname);
    dir = up;
  }
}

/**
 * Where the harness keeps what it generates (indexes, caches, artifacts, checkpoints):
 * $KF_STATE_DIR, else <repo>/.kf-cache. The test command points it at a temp folder,
 * so tests never write into the checkout.
 */
export function stateDir(...parts: string[]): string {
  const root = process.env.KF_STATE_DIR ? path.resolve(process.env.KF_STATE_DIR) : path.join(repoRoot(), '.kf-cache');
  return path.join(root, ...parts);
}

/** Where generated demo worlds live: $KF_DEMO_DIR, else <repo>/data/demo (see data/demo/README.md). */
export function demoDataDir(...parts: string[]): string {
  const root = process.env.KF_DEMO_DIR ? path.resolve(process.env.KF_DEMO_DIR) : path.join(repoRoot(), 'data', 'demo');
  return path.join(root, ...parts);
}

/** `../shared` beside the clone, or KF_SHARED. Benchmarks and papers live there, never in the project. */
export function sharedDir(): string {
  return process.env.KF_SHARED ? path.resolve(process.env.KF_SHARED) : path.resolve(repoRoot(), '..', 'shared');
}

export function benchDir(...parts: string[]): string {
  return path.join(sharedDir(), 'bench', ...parts);
}

/**
 * Resolve a path that comes from data (a media reference in a document, a path
 * inside a benchmark file) against a root, refusing anything that escapes it
 * (`..`, absolute paths, symlinks pointing outside).
 */
export function resolveInside(root: string, rel: string, what = 'path'): string {
  const absRoot = path.resolve(root);
  if (rel.includes('\0')) throw new KfError('path_escape', `${what} contains a NUL byte`, 'fix the reference in the source document', { concerns: rel });
  const candidate = path.resolve(absRoot, rel);
  const inside = (p: string, r: string) => p === r || p.startsWith(r + path.sep);
  if (!inside(candidate, absRoot)) {
    throw new KfError('path_escape', `${what} "${rel}" points outside ${absRoot}`, 'media and data references must stay inside the corpus directory', {
      concerns: rel,
    });
  }
  if (fs.existsSync(candidate)) {
    const real = fs.realpathSync(candidate);
    const realRoot = fs.realpathSync(absRoot);
    if (!inside(real, realRoot)) {
      throw new KfError(
        'path_escape',
        `${what} "${rel}" is a link to ${real}, outside ${realRoot}`,
        'media and data references must stay inside the corpus directory',
        { concerns: rel },
      );
    }
  }
  return candidate;
}
