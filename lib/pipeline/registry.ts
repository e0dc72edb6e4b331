/**
 * The configuration registry (issue 9, item 1): pipeline FAMILIES (a PipelineSpec
 * with a strict zod settings schema) and CONFIGURATIONS (named rows of preset
 * settings over a family). An experiment names a configuration in
 * `pipeline.name`; its `pipeline.settings` (and `caps`) are merged over the
 * preset and validated with the family's schema when the experiment LOADS
 * (lib/run/config.ts), so a misspelled or ill-typed key fails before any
 * question runs, naming the key.
 *
 * API (small on purpose):
 *   registerFamily(spec)               a family, once per name
 *   registerConfiguration(row)         a row; its preset is validated against the family at once
 *   configuration(name) / family(name) lookups (built-in modules are loaded on first use)
 *   listConfigurations()               every row, for `kf run --list-pipelines`
 *   checkSettings(name, layers)        merge preset <- pipeline.settings <- caps and validate; problems name the dotted key
 *   createConfigured(name, settings)   the Pipeline of a configuration (throws on bad settings)
 *
 * Families and rows come from the plug-ins' manifests (lib/pipeline/plugins.ts), loaded
 * lazily on the first lookup, so this file imports no method and families never import
 * the runner.
 */
import type { z } from 'zod';
import type { Pipeline } from './types';
import { didYouMean } from '../util/did-you-mean';
import { KfError } from '../util/errors';
import { Registry } from '../util/registry';
import { loadPlugins, onPlugin } from './plugins';
import type { Configuration, PipelineSpec } from './spec';

type Obj = Record<string, unknown>;

const families = new Registry<PipelineSpec>('pipeline family', 'family');
const rows = new Registry<Configuration>('configuration');

export function registerFamily(spec: PipelineSpec): void {
  families.add(spec.family, spec);
}

/** Add a configuration row; its preset must parse with the family's schema (a broken row fails at registration). */
export function registerConfiguration(row: Configuration, opts: { replace?: boolean } = {}): void {
  const spec = families.get(row.family);
  if (!spec)
    throw new KfError(
      'family_unknown',
      `configuration ${row.name} names family ${row.family}, which is not registered`,
      'register the family first (registerFamily)',
    );
  const parsed = spec.settings.safeParse(row.settings);
  if (!parsed.success) {
    const p = describeIssue(parsed.error.issues[0], () => `configuration ${row.name} preset`);
    throw new KfError('bad_configuration', `configuration ${row.name}: ${p.field} ${p.problem}`, p.hint);
  }
  rows.add(row.name, row, { ...opts, hint: 'pick another name, or pass {replace: true} on purpose' });
}

/** Remove a row (tests). */
export function unregisterConfiguration(name: string): boolean {
  return rows.delete(name);
}

/** Load the plug-ins: their families and rows are registered by the installer below (idempotent). */
export function loadConfigurationModules(): void {
  loadPlugins();
}

onPlugin(
  (p) => {
    for (const f of p.families ?? []) registerFamily(f);
    for (const c of p.configurations ?? []) if (rows.get(c.name) !== c) registerConfiguration(c);
  },
  { after: true },
);

export function configuration(name: string): Configuration | undefined {
  loadConfigurationModules();
  return rows.get(name);
}

export function family(name: string): PipelineSpec | undefined {
  loadConfigurationModules();
  return families.get(name);
}

export function listConfigurations(): Configuration[] {
  loadConfigurationModules();
  return rows.values();
}

/** A settings problem, named by the dotted key where the user wrote it. */
export interface SettingsProblem {
  field: string;
  problem: string;
  hint: string;
}

export interface SettingsLayers {
  /** `pipeline.settings` of the experiment. */
  settings?: Obj;
  /** `caps` of the experiment (numeric budgets merged over the settings). */
  caps?: Obj;
}

export type SettingsCheck =
  | { ok: true; configuration: Configuration; spec: PipelineSpec; settings: Obj }
  | { ok: false; problem: SettingsProblem }
  /** Not a configuration (a plain registered pipeline, or unknown): nothing to validate here. */
  | { ok: 'unknown' };

type Issue = z.core.$ZodIssue;

function describeIssue(issue: Issue, fieldOf: (key: string) => string, known: string[] = [], owner = 'this configuration'): SettingsProblem {
  const key = issue.path.length ? String(issue.path[0]) : '';
  const rest = issue.path.slice(1).map(String);
  if (issue.code === 'unrecognized_keys') {
    const bad = issue.keys[0];
    const near = didYouMean(bad, known);
    const field = fieldOf(bad);
    return {
      field,
      problem: `is not a setting of ${owner}`,
      hint: near ? `did you mean "${field.slice(0, -bad.length)}${near}"?` : `known settings: ${known.join(', ')}`,
    };
  }
  const field = [fieldOf(key), ...rest].join('.');
  const hint = issue.code === 'invalid_value' ? `use one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}` : 'fix the value';
  return { field, problem: issue.message.replace(/^Invalid (input|option): /, 'must be: '), hint };
}

/** Merge preset <- settings <- caps and validate with the family's schema. */
export function checkSettings(name: string, layers: SettingsLayers = {}): SettingsCheck {
  const row = configuration(name);
  if (!row) return { ok: 'unknown' };
  const spec = families.get(row.family)!;
  const settings = layers.settings ?? {};
  const caps = layers.caps ?? {};
  const merged = { ...row.settings, ...settings, ...caps };
  const parsed = spec.settings.safeParse(merged);
  if (parsed.success) return { ok: true, configuration: row, spec, settings: parsed.data as Obj };
  const fieldOf = (key: string) => (key in caps ? `caps.${key}` : key in settings ? `pipeline.settings.${key}` : `the ${name} preset's ${key}`);
  const shape = (spec.settings as unknown as { shape?: Obj }).shape;
  return { ok: false, problem: describeIssue(parsed.error.issues[0], fieldOf, shape ? Object.keys(shape) : [], `${name} (family ${row.family})`) };
}

/** The Pipeline of a configuration with these (pipeline.settings + caps) settings. */
export function createConfigured(name: string, settings: Obj = {}): Pipeline | undefined {
  const r = checkSettings(name, { settings });
  if (r.ok === 'unknown') return undefined;
  if (r.ok === false) {
    throw new KfError('bad_setting', `pipeline ${name}: ${r.problem.field} ${r.problem.problem}`, r.problem.hint, { concerns: r.problem.field });
  }
  const p = r.spec.create(name, r.settings);
  if (p.description) return p;
  const description = r.configuration.description;
  return { name: p.name, description, needsIndex: p.needsIndex, promptPack: p.promptPack, run: (ctx) => p.run(ctx) };
}
