/**
 * Writing a world to disk (writeDemoWorld) and the generate-on-first-use entry
 * point (ensureDemoWorld).
 *
 * Layout of an output directory:
 *   corpus/<doc-id>.md|.html|.pdf   documents (ids = path without extension)
 *   corpus/assets/<doc-id>-figN.png every chart/diagram (PDFs embed the same PNG)
 *   questions.json                  Question[] (benchmark 'demo')
 *   world.json                      entities, relations, documents, fact locations
 *   manifest.json                   options, hash, counts, sha256 per file, drawn text per PNG
 *
 * ensureDemoWorld never exposes a half-written world: it writes into a hidden
 * temporary sibling directory, writes manifest.json last, and renames the whole
 * directory into place. A directory without a manifest is never taken for a world.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError } from '../util/errors';
import { ensureWritableDir, fsError, pidAlive } from '../util/fsx';
import { sha256 } from '../util/hash';
import { repoRoot, demoDataDir } from '../util/paths';
import { drawnTextOf } from './chart-layout';
import { renderChart } from './chart-render';
import { generateWorld } from './generate';
import { DEMO_GENERATOR_VERSION, demoOptionsHash, isPlainPreset, resolveDemoOptions } from './options';
import { renderPdf } from './render-pdf';
import { renderHtml, renderMarkdown } from './render-text';
import type { DemoImageRecord, DemoManifest, DemoOptions, DemoWorld } from './types';

const EXT = { markdown: 'md', html: 'html', pdf: 'pdf' } as const;
const OUR_FILES = ['corpus', 'questions.json', 'world.json', 'manifest.json'];

let fingerprint: string | undefined;

/**
 * Hash of the generator's TypeScript sources, so a world written by an older
 * generator is never reused (a forgotten version bump cannot serve stale data).
 * Always the .ts sources in the repository, whether this runs under tsx or from
 * dist/, so both modes agree; without sources (a packaged build) the version alone.
 */
export function demoGeneratorHash(): string {
  if (fingerprint) return fingerprint;
  const src = path.join(repoRoot(), 'lib', 'demo');
  let h = `v${DEMO_GENERATOR_VERSION}`;
  try {
    const files = fs
      .readdirSync(src)
      .filter((f) => f.endsWith('.ts'))
      .sort();
    if (files.length) h += ':' + sha256(files.map((f) => `${f}\n${fs.readFileSync(path.join(src, f), 'utf8')}`).join('\n')).slice(0, 16);
  } catch {
    /* no sources: version only */
  }
  return (fingerprint = h);
}

function tally<T>(xs: T[], key: (x: T) => string | string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) for (const k of ([] as string[]).concat(key(x))) out[k] = (out[k] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

function isEmptyDir(dir: string): boolean {
  return !fs.existsSync(dir) || (fs.statSync(dir).isDirectory() && fs.readdirSync(dir).length === 0);
}

export function readDemoManifest(dir: string): DemoManifest | undefined {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as DemoManifest;
    return m && typeof m.optionsHash === 'string' && m.files ? m : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Render every document and figure of `world` into `outDir` (which must be empty
 * or hold a previous demo world, whose files are replaced). Deterministic: same
 * world -> same bytes in every file, manifest included.
 */
/** An empty folder for the world, or one holding an earlier world (its files are removed); anything else is refused. */
function prepareWorldDir(out: string): void {
  if (!isEmptyDir(out)) {
    if (!readDemoManifest(out)) {
      throw new KfError(
        'demo_dir_not_empty',
        `${out} is not empty and holds no demo world (no manifest.json)`,
        'choose an empty or new directory for the demo world',
        { concerns: out },
      );
    }
    for (const f of OUR_FILES) fs.rmSync(path.join(out, f), { recursive: true, force: true });
  }
  ensureWritableDir(out, 'demo world directory');
  fs.mkdirSync(path.join(out, 'corpus', 'assets'), { recursive: true });
}

/** What the corpus holds, counted while it is written. */
interface CorpusCounts {
  images: DemoImageRecord[];
  tables: number;
  examples: number;
  paragraphs: number;
  pdfPages: number;
}

/** Write every document (and its chart images) under corpus/. */
async function writeCorpus(world: DemoWorld, write: (rel: string, data: string | Buffer) => void): Promise<CorpusCounts> {
  const c: CorpusCounts = { images: [], tables: 0, examples: 0, paragraphs: 0, pdfPages: 0 };
  for (const doc of world.docs) {
    const pngs = new Map<string, Buffer>();
    for (const s of doc.sections) {
      for (const b of s.blocks) {
        if (b.kind === 'table') c.tables++;
        else if (b.kind === 'example') c.examples++;
        else if (b.kind === 'paragraph') c.paragraphs++;
        else {
          const r = renderChart(b.chart);
          pngs.set(b.asset, r.png);
          write(`corpus/${b.asset}`, r.png);
          c.images.push({
            path: b.asset,
            doc: doc.id,
            label: b.label,
            caption: b.caption,
            ...(doc.format === 'pdf' ? { page: s.page } : {}),
            width: r.width,
            height: r.height,
            drawnText: drawnTextOf(b.chart),
          });
        }
      }
    }
    const rel = `corpus/${doc.id}.${EXT[doc.format]}`;
    if (doc.format === 'markdown') write(rel, renderMarkdown(doc));
    else if (doc.format === 'html') write(rel, renderHtml(doc));
    else {
      write(rel, await renderPdf(doc, (asset) => pngs.get(asset)!));
      c.pdfPages += doc.sections.length;
    }
  }
  return c;
}

/** world.json: options, entities, relations, documents and facts. */
function worldJson(world: DemoWorld): string {
  return (
    JSON.stringify(
      {
        options: world.options,
        entities: world.entities,
        relations: world.relations,
        documents: world.docs.map((d) => ({
          id: d.id,
          file: `corpus/${d.id}.${EXT[d.format]}`,
          format: d.format,
          title: d.title,
          entity: d.entity,
          role: d.role,
          pages: d.sections.length,
        })),
        facts: world.facts,
      },
      null,
      1,
    ) + '\n'
  );
}

function worldManifest(world: DemoWorld, c: CorpusCounts, files: Record<string, string>): DemoManifest {
  const qs = world.questions;
  return {
    generator: 'kf-harness lib/demo',
    version: DEMO_GENERATOR_VERSION,
    generatorHash: demoGeneratorHash(),
    options: world.options,
    optionsHash: demoOptionsHash(world.options),
    seed: String(world.options.seed),
    counts: {
      documents: world.docs.length,
      coreDocuments: world.docs.filter((d) => d.role === 'core').length,
      distractorDocuments: world.docs.filter((d) => d.role === 'distractor').length,
      byFormat: tally(world.docs, (d) => d.format),
      entities: tally(world.entities, (e) => e.type),
      pdfPages: c.pdfPages,
      tables: c.tables,
      images: c.images.length,
      examples: c.examples,
      paragraphs: c.paragraphs,
      questions: qs.length,
      questionShortfall: world.questionShortfall,
      byHops: tally(qs, (q) => String(q.hops)),
      byAnswerFormat: tally(qs, (q) => q.format),
      byModality: tally(qs, (q) => q.modality),
      byType: tally(qs, (q) => q.type ?? 'none'),
    },
    files: Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b))),
    images: c.images,
  };
}

export async function writeDemoWorld(world: DemoWorld, outDir: string): Promise<DemoManifest> {
  const out = path.resolve(outDir);
  prepareWorldDir(out);
  const files: Record<string, string> = {};
  const write = (rel: string, data: string | Buffer) => {
    const abs = path.join(out, rel);
    try {
      fs.writeFileSync(abs, data);
    } catch (e) {
      throw fsError(e, abs, 'write');
    }
    files[rel] = sha256(data);
  };
  const counts = await writeCorpus(world, write);
  write('questions.json', JSON.stringify(world.questions, null, 2) + '\n');
  write('world.json', worldJson(world));
  const manifest = worldManifest(world, counts, files);
  // Last: a manifest means the directory is complete.
  fs.writeFileSync(path.join(out, 'manifest.json'), JSON.stringify(manifest, null, 1) + '\n');
  return manifest;
}

export interface EnsureDemoOptions extends Partial<DemoOptions> {
  /** Where the world lives; default data/demo/<preset> (data/demo/<preset>-<hash> when options differ from the preset). */
  dir?: string;
  /** Regenerate even when a matching world exists. */
  force?: boolean;
}

export interface EnsuredDemoWorld {
  dir: string;
  manifest: DemoManifest;
  generated: boolean;
}

/** The default directory of a world with these options. */
export function defaultDemoDir(opts: DemoOptions): string {
  const name = isPlainPreset(opts) ? opts.preset : `${opts.preset}-${demoOptionsHash(opts)}`;
  return demoDataDir(name);
}

/** True when the manifest matches the options and every file it lists is present. */
function isComplete(dir: string, m: DemoManifest | undefined, hash: string): m is DemoManifest {
  if (!m || m.optionsHash !== hash || m.version !== DEMO_GENERATOR_VERSION || m.generatorHash !== demoGeneratorHash()) return false;
  return Object.keys(m.files).every((rel) => fs.existsSync(path.join(dir, rel)));
}

/** Remove temporary directories left by generations that were interrupted (their process is gone). */
function removeStaleTemps(parent: string, base: string): void {
  if (!fs.existsSync(parent)) return;
  const re = new RegExp(`^\\.${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(tmp|old)-(\\d+)-`);
  for (const f of fs.readdirSync(parent)) {
    const m = re.exec(f);
    if (m && Number(m[2]) !== process.pid && !pidAlive(Number(m[2]))) fs.rmSync(path.join(parent, f), { recursive: true, force: true });
  }
}

let tempCounter = 0;

/**
 * The demo world for these options, generated on first use. Safe against
 * interruption (temp dir + rename) and against concurrent callers (test files
 * running in parallel): the loser of a race discards its copy and uses the winner's.
 */
export async function ensureDemoWorld(options: EnsureDemoOptions = {}): Promise<EnsuredDemoWorld> {
  const { dir: dirOpt, force, ...rest } = options;
  const opts = resolveDemoOptions(rest);
  const hash = demoOptionsHash(opts);
  const dir = path.resolve(dirOpt ?? defaultDemoDir(opts));
  const existing = readDemoManifest(dir);
  if (!force && isComplete(dir, existing, hash)) return { dir, manifest: existing, generated: false };
  if (!isEmptyDir(dir) && !existing) {
    throw new KfError(
      'demo_dir_not_demo',
      `${dir} exists, is not empty and holds no demo world (no manifest.json)`,
      'pass an empty or new directory (--out), or remove this one',
      { concerns: dir },
    );
  }
  const parent = path.dirname(dir);
  const base = path.basename(dir);
  ensureWritableDir(parent, 'demo world parent directory');
  removeStaleTemps(parent, base);
  const tag = `${process.pid}-${Date.now()}-${tempCounter++}`;
  const tmp = path.join(parent, `.${base}.tmp-${tag}`);
  let manifest: DemoManifest;
  try {
    manifest = await writeDemoWorld(generateWorld(opts), tmp);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  const winner = () => {
    const m = readDemoManifest(dir);
    return !force && isComplete(dir, m, hash) ? m : undefined;
  };
  // Someone else may have finished the same world meanwhile.
  const early = winner();
  if (early) {
    fs.rmSync(tmp, { recursive: true, force: true });
    return { dir, manifest: early, generated: false };
  }
  let old: string | undefined;
  try {
    if (fs.existsSync(dir)) {
      old = path.join(parent, `.${base}.old-${tag}`);
      fs.renameSync(dir, old);
    }
    fs.renameSync(tmp, dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    fs.rmSync(tmp, { recursive: true, force: true });
    const late = code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOENT' ? readDemoManifest(dir) : undefined;
    if (late && isComplete(dir, late, hash)) return { dir, manifest: late, generated: false };
    throw fsError(e, dir, 'move the generated demo world into');
  } finally {
    if (old) fs.rmSync(old, { recursive: true, force: true });
  }
  return { dir, manifest, generated: true };
}
