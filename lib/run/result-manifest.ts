/**
 * The stamp every result carries: which code (git commit + dirty flag, harness
 * version), which machine and Node, when, and which config / seed / models /
 * backend produced it. A folder of tables and figures holds one `manifest.json`
 * beside them that adds the list of files (with sha256) written under that stamp.
 *
 * Convention (the runner and notebooks follow it):
 *   const stamp = resultManifest({ config, seed, models, backend });
 *   await writeWithManifest(dir, stamp, async (d) => [
 *     writeTable(rows, { dir: d, name: 'accuracy' }),
 *     await writeFigure(spec, { dir: d, name: 'accuracy' }),
 *   ]);
 * Writing more files into the same folder later merges them into the manifest
 * (newest stamp wins, older entries are kept unless their file is gone).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitInfo } from '../util/git';
import { repoRoot } from '../util/paths';
import { canonicalJson, sha256, shortHash } from '../util/hash';
import { ensureWritableDir, writeJsonAtomic } from '../util/fsx';
import { KfError } from '../util/errors';
import type { Backend } from '../model-api/types';

/** The label every table/figure made by the offline backend must show. */
export const OFFLINE_NOTE = 'offline backend: not model results';

export interface ManifestInput {
  /** The (resolved) experiment config; stored whole, plus its hash. */
  config?: unknown;
  seed?: string | number;
  /** Model ids per stage or a list, as the runner has them. */
  models?: Record<string, string> | string[];
  /** 'offline' results are labelled as such wherever they are shown. */
  backend?: Backend | string;
  extra?: Record<string, unknown>;
}

export interface ResultManifest {
  harness: { name: string; version: string };
  git: { commit: string | null; dirty: boolean | null };
  createdAt: string;
  node: string;
  hostname: string;
  platform: string;
  config?: unknown;
  configHash?: string;
  seed?: string | number;
  models?: Record<string, string> | string[];
  backend?: string;
  /** OFFLINE_NOTE when backend is 'offline'. */
  backendNote?: string;
  extra?: Record<string, unknown>;
}

export interface ManifestFile {
  /** Path relative to the manifest's folder ('/' separators). */
  path: string;
  bytes: number;
  sha256: string;
}

export interface ManifestDoc extends ResultManifest {
  files: ManifestFile[];
}

let harnessCache: { name: string; version: string } | undefined;
function harness(): { name: string; version: string } {
  if (!harnessCache) {
    try {
      const pj = JSON.parse(fs.readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as { name?: string; version?: string };
      harnessCache = { name: pj.name ?? 'kf-harness', version: pj.version ?? '0.0.0' };
    } catch {
      harnessCache = { name: 'kf-harness', version: 'unknown' };
    }
  }
  return harnessCache;
}

/** The stamp for results made now from this input. */
export function resultManifest(input: ManifestInput = {}): ResultManifest {
  const git = gitInfo();
  const m: ResultManifest = {
    harness: harness(),
    git: { commit: git.commit, dirty: git.dirty },
    createdAt: new Date().toISOString(),
    node: process.version,
    hostname: os.hostname(),
    platform: `${process.platform}-${process.arch}`,
  };
  if (input.config !== undefined) {
    m.config = JSON.parse(canonicalJson(input.config)) as unknown;
    m.configHash = shortHash(input.config);
  }
  if (input.seed !== undefined) m.seed = input.seed;
  if (input.models !== undefined) m.models = input.models;
  if (input.backend !== undefined) {
    m.backend = input.backend;
    if (input.backend === 'offline') m.backendNote = OFFLINE_NOTE;
  }
  if (input.extra !== undefined) m.extra = input.extra;
  return m;
}

/** Footnote lines for tables/figures from a stamp: backend label, commit, seed. */
export function manifestNotes(m: ResultManifest): string[] {
  const notes: string[] = [];
  if (m.backendNote) notes.push(m.backendNote);
  else if (m.backend) notes.push(`backend: ${m.backend}`);
  const bits = [`commit ${m.git.commit ? m.git.commit.slice(0, 10) : 'unknown'}${m.git.dirty ? ' (dirty)' : ''}`];
  if (m.seed !== undefined) bits.push(`seed ${m.seed}`);
  if (m.configHash) bits.push(`config ${m.configHash}`);
  notes.push(bits.join(', '));
  return notes;
}

/** Anything a writer returns: a path, a {csv, md} / {html, png, svg} object, or lists of them. */
export type WrittenPaths = string | undefined | null | object | WrittenPaths[];

function flattenPaths(x: WrittenPaths, out: string[] = []): string[] {
  if (typeof x === 'string') out.push(x);
  else if (Array.isArray(x)) for (const y of x) flattenPaths(y as WrittenPaths, out);
  else if (x && typeof x === 'object') {
    for (const [k, v] of Object.entries(x as Record<string, unknown>)) if (k !== 'skipped') flattenPaths(v as WrittenPaths, out);
  }
  return out;
}

/**
 * Write (or merge into) <dir>/manifest.json: the stamp plus the given files with
 * size and sha256. Files outside dir are refused (the manifest describes its folder).
 */
export function writeManifest(dir: string, stamp: ResultManifest, files: WrittenPaths = []): string {
  const abs = ensureWritableDir(dir, 'result directory');
  const file = path.join(abs, 'manifest.json');
  const byPath = new Map<string, ManifestFile>();
  if (fs.existsSync(file)) {
    try {
      const old = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ManifestDoc>;
      for (const f of old.files ?? []) if (f && typeof f.path === 'string' && fs.existsSync(path.join(abs, f.path))) byPath.set(f.path, f);
    } catch {
      /* an unreadable old manifest is replaced: the files themselves are intact */
    }
  }
  for (const p of flattenPaths(files)) {
    const fp = path.resolve(abs, p);
    const rel = path.relative(abs, fp);
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      throw new KfError('manifest_outside', `${fp} is outside the result folder ${abs}`, 'write results into the folder whose manifest lists them');
    }
    if (rel === 'manifest.json') continue;
    let data: Buffer;
    try {
      data = fs.readFileSync(fp);
    } catch (e) {
      throw new KfError(
        'manifest_missing_file',
        `result file ${fp} listed for the manifest does not exist (${(e as NodeJS.ErrnoException).code})`,
        'list only files that were written',
        { concerns: fp, cause: e },
      );
    }
    const key = rel.split(path.sep).join('/');
    byPath.set(key, { path: key, bytes: data.length, sha256: sha256(data) });
  }
  const doc: ManifestDoc = { ...stamp, files: [...byPath.values()].sort((a, b) => a.path.localeCompare(b.path)) };
  writeJsonAtomic(file, doc);
  return file;
}

/**
 * Run `write(dir)` (which writes tables/figures and returns their paths), then
 * record them in <dir>/manifest.json. Returns what `write` returned.
 */
export async function writeWithManifest<T extends WrittenPaths>(dir: string, stamp: ResultManifest, write: (dir: string) => T | Promise<T>): Promise<T> {
  const abs = ensureWritableDir(dir, 'result directory');
  const written = await write(abs);
  writeManifest(abs, stamp, written);
  return written;
}
