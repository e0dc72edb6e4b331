/**
 * The experiments under experiments/ as a catalog (`kf experiments`), and short
 * names resolved against it (`kf run M5` -> experiments/knowforge/demo/M5.toml).
 *
 * A short name is a file's path under experiments/ without its extension
 * (knowforge/m3docvqa/M5), or any tail of it (m3docvqa/M5, M5). When a tail names
 * several files, the demo-world one wins (it runs without the benchmark data) and
 * the others are listed, so the choice is visible; a name that matches nothing
 * gets the nearest names.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadExperiment } from '../run/config';
import { listPipelines } from '../run/registry';
import { didYouMean } from '../util/did-you-mean';
import { KfError, errorMessage } from '../util/errors';
import { repoRoot } from '../util/paths';
import { nearestPath } from './path-hint';

export interface ExperimentEntry {
  /** Path under experiments/ without the extension (knowforge/demo/M5): what `kf run` accepts. */
  ref: string;
  file: string;
  name: string;
  pipeline: string;
  /** The pipeline's family (knowforge-one-shot, knowforge-agents, dualg, ...); '?' when the file does not load. */
  family: string;
  benchmark: string;
  description: string;
  /** Why the file does not load (it is still listed, so the user sees it). */
  error?: string;
}

export function experimentsRoot(): string {
  return path.join(repoRoot(), 'experiments');
}

/** Experiment files under dir: .toml/.json, not the shared `_*.toml` layers, not the suites. */
export function experimentFiles(dir = experimentsRoot()): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'suites') out.push(...experimentFiles(p));
    } else if (/\.(toml|json)$/.test(e.name) && !e.name.startsWith('_')) out.push(p);
  }
  return out;
}

function refOf(file: string, dir: string): string {
  return path
    .relative(dir, file)
    .replace(/\.(toml|json)$/, '')
    .split(path.sep)
    .join('/');
}

/** Every experiment with its family, benchmark and description (each file loaded with its extends chain). */
export function experimentCatalog(dir = experimentsRoot()): ExperimentEntry[] {
  const families = new Map(listPipelines().map((p) => [p.name, p.family]));
  return experimentFiles(dir).map((file) => {
    const ref = refOf(file, dir);
    try {
      const c = loadExperiment(file).config;
      return {
        ref,
        file,
        name: c.name,
        pipeline: c.pipeline.name,
        family: families.get(c.pipeline.name) ?? '?',
        benchmark: c.benchmark.name,
        description: c.description ?? '',
      };
    } catch (e) {
      return { ref, file, name: path.basename(ref), pipeline: '?', family: '?', benchmark: '?', description: '', error: errorMessage(e).split('\n')[0] };
    }
  });
}

const isDemo = (ref: string) => ref.split('/').includes('demo');

/**
 * The file a short experiment name means, or undefined when `ref` is a path (or a
 * top-level name) that loadExperiment resolves itself. `note` receives the line
 * naming the other matches when a name is ambiguous.
 */
export function resolveExperimentName(ref: string, note: (line: string) => void = () => {}, dir = experimentsRoot()): string | undefined {
  const direct = [ref, `${ref}.toml`, `${ref}.json`, path.join(dir, ref), path.join(dir, `${ref}.toml`), path.join(dir, `${ref}.json`)];
  if (direct.some((c) => fs.existsSync(c) && fs.statSync(c).isFile())) return undefined;
  const want = ref.replace(/\.(toml|json)$/, '').replace(/^experiments\//, '');
  const files = experimentFiles(dir);
  const refs = files.map((f) => refOf(f, dir));
  const hits = refs.map((r, i) => ({ r, f: files[i] })).filter(({ r }) => r === want || r.endsWith(`/${want}`));
  if (hits.length === 1) return hits[0].f;
  if (hits.length > 1) {
    const demo = hits.filter(({ r }) => isDemo(r));
    if (demo.length === 1) {
      const others = hits.filter((h) => h !== demo[0]).map(({ r }) => r);
      note(`${ref}: experiments/${demo[0].r} (the demo world); also ${others.join(', ')} -- name one by its path, e.g. kf run ${others[0]}`);
      return demo[0].f;
    }
    throw new KfError(
      'experiment_ambiguous',
      `"${ref}" names ${hits.length} experiments: ${hits.map(({ r }) => r).join(', ')}`,
      `name one by its path, e.g. kf run ${hits[0].r}`,
      {
        concerns: ref,
      },
    );
  }
  const nearFile = /[/\\]/.test(ref) ? nearestPath(ref) : undefined;
  const near =
    (nearFile && path.relative(process.cwd(), nearFile)) ??
    didYouMean(want, refs) ??
    didYouMean(path.basename(want), [...new Set(refs.map((r) => path.basename(r)))]);
  throw new KfError(
    'experiment_missing',
    `no experiment file "${ref}" (looked for a file, and under ${path.relative(process.cwd(), dir) || dir})`,
    `${near ? `did you mean "${near}"? ` : ''}kf experiments lists them, or pass the path of a .toml or .json experiment file`,
    { concerns: ref },
  );
}
