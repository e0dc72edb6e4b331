/**
 * The one plug-in loader (issue 16). Every module goes through `loadModule`: the harness's own
 * manifests, found on disk next to this file (`builtInModules`: each `lib/<m>/plugin` file, a
 * method, and the pipeline's own stage manifests `lib/pipeline/*-plugin`), and the modules outside
 * lib/ named by path in KF_PLUGINS (separated by ':'), e.g. `KF_PLUGINS=./my-method.js`. A new
 * method folder with a `plugin.ts` is loaded the day it appears; no list names it. A plug-in module
 * exports its manifest as `plugin` (or `default`).
 *
 * The registries do not import the manifests (that would turn every lookup into an import of
 * every method): each registry hands this file an installer (`onPlugin`) and calls `loadPlugins()`
 * before a lookup; loading a manifest passes it to every installer, and an installer added later
 * is replayed over the manifests already loaded.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError, errorMessage } from '../util/errors';
import type { Plugin } from './plugin';
import { addPromptsDir } from '../util/prompts';
import { Registry } from '../util/registry';
import { registerBenchmark } from '../bench/registry';

const loaded = new Registry<Plugin>('plug-in', 'plugin');
const loadedModules = new Set<string>();
const installers: { install: (p: Plugin) => void; after: boolean }[] = [];

/**
 * Add a registry's installer; it also receives every manifest loaded before it. `after`: run it
 * after the others for each manifest (configuration rows are validated against the retrievers
 * the same manifest adds).
 */
export function onPlugin(install: (p: Plugin) => void, opts: { after?: boolean } = {}): void {
  installers.push({ install, after: !!opts.after });
  for (const p of loaded.values()) install(p);
}

/** Register a manifest (the loader does this for each module; tests may call it directly). */
export function registerPlugin(p: Plugin): void {
  if (loaded.get(p.name) === p) return;
  loaded.add(p.name, p, { hint: 'give the plug-in another name' });
  if (p.promptsDir) addPromptsDir(p.promptsDir);
  for (const b of p.benchmarks ?? []) registerBenchmark(b);
  for (const x of installers) if (!x.after) x.install(p);
  for (const x of installers) if (x.after) x.install(p);
}

/** Absolute paths of the modules named in an environment variable (separated by the path delimiter). */
function modulesIn(variable: string): string[] {
  return (process.env[variable] ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((f) => path.resolve(f));
}

let aliasNoted = false;

/**
 * KF_PIPELINE_MODULES, the old variable for one's own pipeline modules: a deprecated alias of
 * KF_PLUGINS, loaded by the same `loadModules` (a module with a manifest, or an old one that
 * registers its pipelines on load or in an exported `register()`); a one-line note says so once.
 */
function aliasModules(): string[] {
  const mods = modulesIn('KF_PIPELINE_MODULES');
  if (mods.length && !aliasNoted) {
    aliasNoted = true;
    process.stderr.write('note: KF_PIPELINE_MODULES is deprecated: name the modules in KF_PLUGINS (each exporting its manifest as `plugin`)\n');
  }
  return mods;
}

/**
 * The harness's own plug-in modules, by absolute path: `lib/<m>/plugin` of every folder beside
 * this one that has it, and this folder's `*-plugin` files (its own `plugin` file is the manifest
 * type, not a manifest). Compiled (dist/, `.js`) or run from source (tsx, `.ts`) alike: the
 * extension is this file's own.
 */
function builtInModules(): string[] {
  return (builtIns ??= findBuiltInPlugins(__dirname, path.extname(__filename)));
}

let builtIns: string[] | undefined;

/** The plug-in modules of a lib folder, given the folder of the loader (`lib/pipeline`) and the extension ('.js' or '.ts'); sorted paths. */
export function findBuiltInPlugins(pipelineDir: string, ext: string): string[] {
  const lib = path.dirname(pipelineDir);
  const methods = fs
    .readdirSync(lib, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== path.basename(pipelineDir))
    .map((d) => path.join(lib, d.name, `plugin${ext}`))
    .filter((f) => fs.existsSync(f));
  const stages = fs
    .readdirSync(pipelineDir)
    .filter((f) => f.endsWith(`-plugin${ext}`))
    .map((f) => path.join(pipelineDir, f));
  return [...methods, ...stages].sort();
}

function manifestOf(mod: string, m: Record<string, unknown>): Plugin {
  const p = (m.plugin ?? m.default) as Plugin | undefined;
  if (!p || typeof p !== 'object' || typeof p.name !== 'string' || !p.name)
    throw new KfError('plugin_manifest', `plug-in module ${mod} exports no manifest`, 'export `plugin` (a Plugin: name, description, ...) from the module', {
      concerns: mod,
    });
  return p;
}

function requireModule(mod: string, fix: string): Record<string, unknown> {
  try {
    return require(mod) as Record<string, unknown>;
  } catch (e) {
    throw new KfError('plugin_module', `cannot load plug-in ${mod}: ${errorMessage(e).split('\n')[0]}`, fix, {
      concerns: mod,
      cause: e,
    });
  }
}

type Found = { mod: string; i: number; p?: Plugin };

/** Lower `order` first; without one, after those with one; ties in the order found. */
const byOrder = (a: Found, b: Found) => (a.p?.order ?? Number.MAX_SAFE_INTEGER) - (b.p?.order ?? Number.MAX_SAFE_INTEGER) || a.i - b.i;

/** The manifest of a loaded module; an old KF_PIPELINE_MODULES module without one registers itself (on load or by `register()`). */
function manifestOrLegacy(mod: string, m: Record<string, unknown>, legacy: boolean): Plugin | undefined {
  if (!legacy || m.plugin || m.default) return manifestOf(mod, m);
  if (typeof m.register === 'function') (m.register as () => void)();
  return undefined;
}

/**
 * The one way a plug-in module is loaded, built-in, from KF_PLUGINS or from its deprecated alias:
 * require the modules not loaded yet, read their manifests (all of them, before any is
 * registered) and register them, sorted by `order` (built-ins) or as named (the variables).
 */
function loadModules(mods: readonly string[], opts: { sortByOrder?: boolean; fix: string; legacy?: boolean }): void {
  const found: Found[] = mods
    .filter((mod) => !loadedModules.has(mod))
    .map((mod, i) => ({ mod, i, p: manifestOrLegacy(mod, requireModule(mod, opts.fix), !!opts.legacy) }));
  if (opts.sortByOrder) found.sort(byOrder);
  for (const { mod, p } of found) {
    if (p) registerPlugin(p);
    loadedModules.add(mod);
  }
}

/**
 * Load the built-in plug-ins, then those named in KF_PLUGINS and in its deprecated alias
 * KF_PIPELINE_MODULES (idempotent per module; the variables are read on every call).
 */
export function loadPlugins(): void {
  loadModules(builtInModules(), { sortByOrder: true, fix: 'fix the module (a built-in plug-in: lib/<method>/plugin.ts)' });
  loadModules(modulesIn('KF_PLUGINS'), { fix: 'fix the path in KF_PLUGINS or the module' });
  loadModules(aliasModules(), { fix: 'fix the path in KF_PIPELINE_MODULES (better: KF_PLUGINS) or the module', legacy: true });
}

/** The loaded manifests, in load order. */
export function loadedPlugins(): readonly Plugin[] {
  loadPlugins();
  return loaded.values();
}
