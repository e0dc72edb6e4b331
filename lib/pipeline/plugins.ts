/**
 * The one plug-in loader (issue 16). BUILT_IN_PLUGINS names the harness's own manifests; modules
 * outside lib/ are added by path in KF_PLUGINS (separated by ':'), e.g. `KF_PLUGINS=./my-method.js`.
 * A plug-in module exports its manifest as `plugin` (or `default`).
 *
 * The registries do not import the manifests (that would turn every lookup into an import of
 * every method): each registry hands this file an installer (`onPlugin`) and calls `loadPlugins()`
 * before a lookup; loading a manifest passes it to every installer, and an installer added later
 * is replayed over the manifests already loaded.
 */
import * as path from 'node:path';
import { KfError, errorMessage } from '../util/errors';
import type { Plugin } from './plugin';
import { addPromptsDir } from '../util/prompts';
import { Registry } from '../util/registry';
import { registerBenchmark } from '../bench/registry';

/** The built-in plug-ins, relative to this file, in the order `kf models` lists their offline roles. */
const BUILT_IN_PLUGINS = ['../knowforge/plugin', './index-plugin', '../dualg/plugin', './corpus-plugin'];

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

function outsideModules(): string[] {
  return (process.env.KF_PLUGINS ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((f) => path.resolve(f));
}

function manifestOf(mod: string, m: Record<string, unknown>): Plugin {
  const p = (m.plugin ?? m.default) as Plugin | undefined;
  if (!p || typeof p !== 'object' || typeof p.name !== 'string' || !p.name)
    throw new KfError('plugin_manifest', `plug-in module ${mod} exports no manifest`, 'export `plugin` (a Plugin: name, description, ...) from the module', {
      concerns: mod,
    });
  return p;
}

/** Load the built-in plug-ins and those named in KF_PLUGINS (idempotent per module; KF_PLUGINS is read on every call). */
export function loadPlugins(): void {
  for (const mod of [...BUILT_IN_PLUGINS, ...outsideModules()]) {
    if (loadedModules.has(mod)) continue;
    loadedModules.add(mod);
    let m: Record<string, unknown>;
    try {
      m = require(mod) as Record<string, unknown>;
    } catch (e) {
      loadedModules.delete(mod);
      throw new KfError('plugin_module', `cannot load plug-in ${mod}: ${errorMessage(e).split('\n')[0]}`, 'fix the path in KF_PLUGINS or the module', {
        concerns: mod,
        cause: e,
      });
    }
    registerPlugin(manifestOf(mod, m));
  }
}

/** The loaded manifests, in load order. */
export function loadedPlugins(): readonly Plugin[] {
  loadPlugins();
  return loaded.values();
}
