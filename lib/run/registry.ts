/**
 * The pipeline registry: experiment configs name a pipeline (`pipeline.name`),
 * the runner gets it here. Pipeline families register themselves:
 * lib/knowforge/modes.ts exports `registerKnowforge()`, lib/dualg/modes.ts
 * `registerDualg()`; they are loaded lazily on the first lookup, so the runner
 * does not depend on them at import time (and tests register small fakes).
 * Pipelines of your own: set KF_PIPELINE_MODULES to module paths (separated
 * by ':'), each registering its pipelines when loaded.
 */
import * as path from 'node:path';
import type { Pipeline } from './types';
import { KfError } from '../util/errors';
import { didYouMean } from './schema';

/** Makes a pipeline from the experiment's pipeline settings (caps merged in). */
export type PipelineFactory = (settings: Record<string, unknown>) => Pipeline;

interface Entry {
  name: string;
  description: string;
  factory: PipelineFactory;
  /** Which family registered it ('knowforge', 'dualg', 'test', ...). */
  family: string;
}

const entries = new Map<string, Entry>();

export interface RegisterOptions {
  description?: string;
  family?: string;
  /** Replace an existing registration (default: re-registering a name is an error, so two families cannot silently shadow each other). */
  replace?: boolean;
}

export function registerPipeline(name: string, factory: PipelineFactory, opts: RegisterOptions = {}): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(name)) {
    throw new KfError('bad_pipeline_name', `pipeline name "${name}" is not usable`, 'use letters, digits, ".", "_", "+" and "-"');
  }
  const old = entries.get(name);
  if (old && !opts.replace && old.factory !== factory) {
    throw new KfError('pipeline_exists', `pipeline ${name} is already registered (by ${old.family})`, 'pick another name, or pass {replace: true} on purpose');
  }
  entries.set(name, { name, factory, description: opts.description ?? old?.description ?? '', family: opts.family ?? 'custom' });
}

/** Remove a registration (tests). */
export function unregisterPipeline(name: string): boolean {
  return entries.delete(name);
}

/** Families loaded on first lookup: [module path relative to this file, exported register function]. */
const FAMILIES: [string, string, string][] = [
  ['../knowforge/modes', 'registerKnowforge', 'knowforge'],
  ['../dualg/modes', 'registerDualg', 'dualg'],
];
let familiesLoaded = false;
const familyProblems: string[] = [];

function isMissingModule(e: unknown, modulePath: string): boolean {
  const err = e as NodeJS.ErrnoException;
  if (err?.code !== 'MODULE_NOT_FOUND') return false;
  // Only the family module itself being absent is tolerated; a missing import INSIDE it is a real error.
  const tail = modulePath.replace(/^\.\.\//, '');
  return typeof err.message === 'string' && err.message.split('\n')[0].includes(tail);
}

/** Load the pipeline families that exist in this checkout (idempotent). */
export function loadPipelineFamilies(): void {
  if (familiesLoaded) return;
  familiesLoaded = true;
  for (const [mod, fn, family] of FAMILIES) {
    let m: Record<string, unknown>;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      m = require(mod) as Record<string, unknown>;
    } catch (e) {
      if (isMissingModule(e, mod)) continue;
      familiesLoaded = false;
      throw e;
    }
    if (typeof m[fn] === 'function') {
      // The family gets the register function (so it never imports the runner).
      (m[fn] as (register: typeof registerPipeline) => void)(registerPipeline);
    } else if (typeof m.knowforgePipelines === 'function' && family === 'knowforge') {
      // Until modes.ts exports registerKnowforge(): register its pipeline table.
      for (const [name, p] of Object.entries((m.knowforgePipelines as () => Record<string, Pipeline>)())) {
        if (!entries.has(name)) registerPipeline(name, () => p, { description: p.description, family });
      }
    } else {
      familyProblems.push(`${mod} exports no ${fn}()`);
    }
  }
  // Your own pipelines (notebooks, experiments outside the harness): modules named in KF_PIPELINE_MODULES
  // (separated by the path delimiter) are loaded too; each calls registerPipeline or exports register().
  for (const file of (process.env.KF_PIPELINE_MODULES ?? '').split(path.delimiter).filter(Boolean)) {
    const abs = path.resolve(file);
    let m: Record<string, unknown>;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      m = require(abs) as Record<string, unknown>;
    } catch (e) {
      familiesLoaded = false;
      throw new KfError('pipeline_module', `cannot load pipeline module ${abs} (from KF_PIPELINE_MODULES): ${(e as Error).message.split('\n')[0]}`, 'fix the path in KF_PIPELINE_MODULES or the module', { concerns: abs, cause: e });
    }
    if (typeof m.register === 'function') (m.register as () => void)();
  }
}

/** Make the named pipeline with these settings; unknown names fail with a did-you-mean. */
export function getPipeline(name: string, settings: Record<string, unknown> = {}): Pipeline {
  loadPipelineFamilies();
  const e = entries.get(name);
  if (!e) {
    const names = [...entries.keys()].sort();
    const near = didYouMean(name, names);
    throw new KfError(
      'pipeline_unknown',
      `no pipeline named "${name}"${familyProblems.length ? ` (${familyProblems.join('; ')})` : ''}`,
      near ? `did you mean "${near}"?` : names.length ? `registered: ${names.join(', ')}` : 'no pipeline is registered yet: lib/knowforge/modes.ts registers them',
      { concerns: name },
    );
  }
  const p = e.factory(settings);
  if (!p || typeof p.run !== 'function') throw new KfError('bad_pipeline', `the factory of pipeline ${name} returned no pipeline`, 'fix its registration');
  return p;
}

export function listPipelines(): { name: string; description: string; family: string }[] {
  loadPipelineFamilies();
  return [...entries.values()].map(({ name, description, family }) => ({ name, description, family })).sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
}
