/**
 * The pipeline lookup of the runner: experiment configs name a pipeline
 * (`pipeline.name`), the runner gets it here. Two sources:
 *   - configurations (lib/pipeline/registry.ts): named rows of typed settings
 *     over a pipeline family (lib/knowforge/configurations.ts: S0..S4, ...);
 *     their settings are validated by the family's schema;
 *   - plain pipelines registered in process with `registerPipeline(name, factory)`
 *     (a notebook's or a test's own pipeline), whose settings are their own business.
 *
 * `registerPipeline` is the in-process route, not a second way to load modules: a module of
 * one's own is a plug-in named in KF_PLUGINS (lib/pipeline/plugins.ts loads it with the built-in
 * manifests). KF_PIPELINE_MODULES, the old variable, is a deprecated alias loaded by that loader.
 */
import type { Pipeline } from '../pipeline/types';
import { KfError } from '../util/errors';
import { didYouMean } from './schema';
import { createConfigured, listConfigurations, loadConfigurationModules } from '../pipeline/registry';

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

/** Load the plug-ins (their configuration families, and the modules of KF_PLUGINS and its deprecated alias KF_PIPELINE_MODULES). */
export function loadPipelineFamilies(): void {
  loadConfigurationModules();
}

/** Make the named pipeline with these settings; unknown names fail with a did-you-mean. */
export function getPipeline(name: string, settings: Record<string, unknown> = {}): Pipeline {
  loadPipelineFamilies();
  const e = entries.get(name);
  if (!e) {
    const configured = createConfigured(name, settings);
    if (configured) return configured;
    const names = [...new Set([...entries.keys(), ...listConfigurations().map((c) => c.name)])].sort();
    const near = didYouMean(name, names);
    throw new KfError(
      'pipeline_unknown',
      `no pipeline named "${name}"`,
      near
        ? `did you mean "${near}"?`
        : names.length
          ? `registered: ${names.join(', ')}`
          : 'no pipeline is registered yet: lib/knowforge/configurations.ts registers them',
      { concerns: name },
    );
  }
  const p = e.factory(settings);
  if (!p || typeof p.run !== 'function') throw new KfError('bad_pipeline', `the factory of pipeline ${name} returned no pipeline`, 'fix its registration');
  return p;
}

export function listPipelines(): { name: string; description: string; family: string }[] {
  loadPipelineFamilies();
  const rows = listConfigurations()
    .filter((c) => !entries.has(c.name))
    .map(({ name, description, family }) => ({ name, description, family }));
  return [...[...entries.values()].map(({ name, description, family }) => ({ name, description, family })), ...rows].sort((a, b) =>
    a.name.localeCompare(b.name, 'en', { numeric: true }),
  );
}
