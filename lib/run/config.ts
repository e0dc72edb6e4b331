/**
 * Experiment configs: `experiments/*.toml` or `*.json` -> one validated,
 * fully-resolved `ExperimentConfig`.
 *
 *   file(s) --extends chain, each validated on its own--> deep merge
 *     --CLI overrides (typed by the schema)--> defaults + required fields + cross checks
 *     --> ExperimentConfig (+ the hash that every record carries)
 *
 * Every error names the file (or `--override`) and the dotted field, and says
 * what to write instead. Paths are stored in a portable form (`${bench}/...`,
 * `${repo}/...`, else absolute) so that the config hash does not depend on
 * where the checkout lives; `expandPath` turns them back into absolute paths.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BenchmarkName } from '../bench/names';
import type { FusionMethod, RetrievalMode } from '../index/types';
import { normalizeModelsConfig, type ModelsConfig } from '../models/config';
import { checkSettings } from '../pipeline/registry';
import { loadPlugins } from '../pipeline/plugins';
import { benchmarkSpec } from '../bench/registry';
import { KfError, isKfError } from '../util/errors';
import { canonicalJson, shortHash } from '../util/hash';
import { benchDir, repoRoot, sharedDir, stateDir } from '../util/paths';
import { jsonErrorLabel } from '../util/json-error-at';
import {
  BENCHMARK_PATH_KEYS,
  ENDPOINT_ALIASES,
  EXPERIMENT_SCHEMA,
  MODELS_SCHEMA,
  NON_RESULT_PATHS,
  didYouMean,
  typeName,
  type Field,
  type FieldType,
} from './schema';

export type TraceMode = 'files' | 'jsonl' | 'off';

/** The fully-resolved experiment (every default applied). Paths are portable strings: use expandPath(). */
export interface ExperimentConfig {
  name: string;
  description?: string;
  seed: string | number;
  concurrency: number;
  benchmark: {
    name: BenchmarkName;
    split: 'dev' | 'holdout';
    paths: Record<string, string>;
    options: { allowMissingGold?: boolean; corpus?: 'all' | 'candidates'; imageOnly?: boolean; split?: string; name?: string };
    subset: string;
    sample?: { n: number; by?: string; seed?: string | number };
  };
  pipeline: { name: string; settings: Record<string, unknown> };
  caps: Record<string, number>;
  index?: {
    dir?: string;
    build: 'never' | 'ensure';
    embedder: 'hash' | 'glove' | 'fitted' | 'openai';
    /** Settings of the registered retrievers (RetrieverSetup.settings). */
    settings?: Record<string, unknown>;
    /** A kp-index artifact key, or "auto" (lib/run/index-artifact.ts). */
    artifact?: string;
    /** One index per document (single-document benchmarks, as the paper runs MMLongBench-Doc), built and cached per document. */
    perDocument?: boolean;
    /** A hosted knowledge base instead of a local index: "remote:<uuid>" (lib/remote-kb; server and key from the environment); it replaces dir and artifact. */
    kb?: string;
    options: Record<string, unknown>;
    search: { mode?: RetrievalMode; fusion?: FusionMethod; withContext?: boolean };
  };
  models: ModelsConfig;
  scoring: { judge: boolean; refusalAsNotAnswerable: boolean; ks: number[] };
  limits: { maxQuestions?: number; maxErrors: number; maxErrorShare: number; timeoutMs: number };
  output: { traces: TraceMode; checkpointEvery: number; buckets: string[] };
}

export interface ResolvedExperiment {
  config: ExperimentConfig;
  /** Hash of the result-affecting part of the config (schema NON_RESULT_PATHS left out). */
  hash: string;
  /** The experiment file (absolute), when loaded from one. */
  file?: string;
  /** Every file read, the inherited ones first. */
  files: string[];
  /** The overrides applied, as given. */
  overrides: string[];
}

type Obj = Record<string, unknown>;

/** A table: a plain object (TOML parsers may give null-prototype objects; dates and class instances are not tables). */
const isPlainObject = (v: unknown): v is Obj => {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** Where a value came from, for error messages and relative paths. */
interface Origin {
  /** `experiments/x.toml` (relative to the cwd when shorter) or `--override a.b=c`. */
  label: string;
  /** Relative paths in this layer resolve against this folder. */
  baseDir: string;
  file?: string;
}

function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && rel.length < file.length ? rel : file;
}

function fail(origin: Origin, field: string, problem: string, hint: string): never {
  throw new KfError('bad_experiment', `${origin.label}: ${field ? `field "${field}" ` : ''}${problem}`, hint, { concerns: origin.file ?? origin.label });
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (v instanceof Date || (v && typeof v === 'object' && v.constructor && v.constructor.name === 'TomlDate')) return 'a date';
  if (typeof v === 'object') return 'a table';
  if (typeof v === 'string') return `"${v.length > 40 ? v.slice(0, 40) + '...' : v}"`;
  return `${typeof v} ${String(v)}`;
}

// ---------------------------------------------------------------------------
// Paths

const PREFIXES: [string, () => string][] = [
  ['${bench}', () => benchDir()],
  ['${shared}', () => sharedDir()],
  ['${repo}', () => repoRoot()],
];

/**
 * `${state}/x`: generated state (KF_STATE_DIR, default <repo>/.kf-cache). Kept as written in resolved configs
 * (never produced by portablePath), so moving the state folder changes no config hash.
 */
const STATE_PREFIX: [string, () => string] = ['${state}', () => stateDir()];

/** `${bench}/x` -> absolute. Absolute paths pass through; other relative paths resolve against `baseDir` (default the repo root). */
export function expandPath(p: string, baseDir = repoRoot()): string {
  for (const [prefix, root] of [STATE_PREFIX, ...PREFIXES]) {
    if (p === prefix) return root();
    if (p.startsWith(prefix + '/')) return path.join(root(), p.slice(prefix.length + 1));
  }
  return path.resolve(baseDir, p);
}

/** The portable spelling of an absolute path: under the bench/shared/repo folders it is written with their prefix. */
export function portablePath(abs: string): string {
  for (const [prefix, root] of PREFIXES) {
    const r = path.resolve(root());
    if (abs === r) return prefix;
    if (abs.startsWith(r + path.sep)) return `${prefix}/${path.relative(r, abs).split(path.sep).join('/')}`;
  }
  return abs;
}

function normalisePath(v: string, origin: Origin, field: string): string {
  if (!v.trim()) fail(origin, field, 'is an empty path', 'give a file path');
  if (v === STATE_PREFIX[0] || v.startsWith(STATE_PREFIX[0] + '/')) return v;
  if (v.includes('${') && !PREFIXES.some(([p]) => v === p || v.startsWith(p + '/'))) {
    fail(origin, field, `uses an unknown prefix in "${v}"`, 'known prefixes: ${bench}, ${shared}, ${repo}, ${state} (followed by /)');
  }
  return portablePath(expandPath(v, origin.baseDir));
}

// ---------------------------------------------------------------------------
// Validation of one layer (a file or an override): types and unknown keys, no required fields.

function checkValue(v: unknown, t: FieldType, field: string, origin: Origin): unknown {
  if (typeof v === 'bigint') {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER))
      fail(origin, field, `is a too large integer (${v})`, 'use a smaller number');
    v = Number(v);
  }
  const wrong = (): never => fail(origin, field, `must be ${typeName(t)}, got ${describeValue(v)}`, 'fix the value (see experiments/_schema.md)');
  switch (t.kind) {
    case 'string': {
      if (typeof v !== 'string') wrong();
      const s = v as string;
      if (t.enum && !t.enum.includes(s)) {
        const near = didYouMean(s, t.enum);
        fail(origin, field, `must be one of ${t.enum.join(', ')}, got "${s}"`, near ? `did you mean "${near}"?` : 'pick one of the listed values');
      }
      if (t.keywords?.includes(s)) return s;
      return t.path ? normalisePath(s, origin, field) : s;
    }
    case 'int':
    case 'number': {
      if (typeof v !== 'number' || !Number.isFinite(v)) wrong();
      const n = v as number;
      if (t.kind === 'int' && !Number.isInteger(n)) wrong();
      if (t.min !== undefined && n < t.min) wrong();
      if (t.kind === 'number' && t.max !== undefined && n > t.max) wrong();
      return n;
    }
    case 'boolean':
      if (typeof v !== 'boolean') wrong();
      return v;
    case 'seed':
      if (!(typeof v === 'string' && v !== '') && !(typeof v === 'number' && Number.isInteger(v))) wrong();
      return v;
    case 'strings': {
      const list = typeof v === 'string' ? [v] : Array.isArray(v) ? v : wrong();
      return (list as unknown[]).map((x, i) => {
        if (typeof x !== 'string' || !x) fail(origin, `${field}[${i}]`, `must be a non-empty string, got ${describeValue(x)}`, 'fix the value');
        return t.path ? normalisePath(x as string, origin, `${field}[${i}]`) : x;
      });
    }
    case 'ints': {
      if (!Array.isArray(v) || !v.length) wrong();
      return (v as unknown[]).map((x, i) => checkValue(x, { kind: 'int', min: t.min }, `${field}[${i}]`, origin));
    }
    case 'object': {
      if (!isPlainObject(v)) wrong();
      return checkObject(v as Obj, t.fields, field, origin);
    }
    case 'map': {
      if (!isPlainObject(v)) wrong();
      const out: Obj = {};
      for (const [k, x] of Object.entries(v as Obj)) out[k] = checkValue(x, t.values, field ? `${field}.${k}` : k, origin);
      return out;
    }
    case 'any':
      return toPlain(v, field, origin);
    case 'models': {
      if (!isPlainObject(v)) wrong();
      let models: ModelsConfig;
      try {
        models = normalizeModelsConfig(toPlain(v, field, origin), field);
      } catch (e) {
        if (isKfError(e)) fail(origin, '', e.message, e.hint);
        throw e;
      }
      if (models.cache?.file) models.cache.file = normalisePath(models.cache.file, origin, `${field}.cache.file`);
      return models;
    }
  }
}

/** JSON-compatible copy (TOML dates become ISO strings, big integers numbers). */
function toPlain(v: unknown, field: string, origin: Origin): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date || (v && typeof v === 'object' && (v as object).constructor?.name === 'TomlDate')) return (v as Date).toISOString();
  if (Array.isArray(v)) return v.map((x, i) => toPlain(x, `${field}[${i}]`, origin));
  if (v && typeof v === 'object') {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v as Obj)) out[k] = toPlain(x, `${field}.${k}`, origin);
    return out;
  }
  if (typeof v === 'number' && !Number.isFinite(v)) fail(origin, field, `is ${v}`, 'use a finite number');
  return v;
}

function checkObject(v: Obj, fields: Record<string, Field>, prefix: string, origin: Origin): Obj {
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    const p = prefix ? `${prefix}.${k}` : k;
    const f = fields[k];
    if (!f) {
      const names = Object.keys(fields);
      const near = didYouMean(k, names);
      fail(
        origin,
        p,
        'is not a known field',
        near ? `did you mean "${prefix ? `${prefix}.` : ''}${near}"?` : `known fields${prefix ? ` of ${prefix}` : ''}: ${names.join(', ')}`,
      );
    }
    if (x === undefined) continue;
    out[k] = checkValue(x, f.type, p, origin);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Files and the extends chain

/** Parse one experiment file (TOML or JSON by extension) into a raw object. */
export function readConfigFile(file: string): Obj {
  const label = displayPath(file);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new KfError(
      'experiment_missing',
      `experiment file ${label} cannot be read (${(e as NodeJS.ErrnoException).code})`,
      'check the path (kf runs lists runs; experiments live in experiments/)',
      { concerns: file, cause: e },
    );
  }
  const ext = path.extname(file).toLowerCase();
  let raw: unknown;
  if (ext === '.toml') {
    try {
      // smol-toml ships CommonJS beside ESM; its type declarations are ESM-only, hence the typed require.

      const { parse } = require('smol-toml') as { parse: (toml: string) => unknown };
      raw = parse(text);
    } catch (e) {
      const te = e as Error & { line?: number; column?: number };
      const first = te.message.split('\n')[0];
      throw new KfError('bad_experiment', `${label}:${te.line ?? '?'}:${te.column ?? '?'}: invalid TOML: ${first}`, 'fix the syntax at that line', {
        concerns: file,
        cause: e,
      });
    }
  } else if (ext === '.json') {
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new KfError(
        'bad_experiment',
        `${jsonErrorLabel(label, text)}: invalid JSON: ${(e as Error).message.replace(/ in JSON at position \d+$/, '')}`,
        'fix the syntax at that line and column (JSON has no comments or trailing commas; TOML files may)',
        { concerns: file, cause: e },
      );
    }
  } else {
    throw new KfError('bad_experiment', `experiment file ${label} must end in .toml or .json`, 'rename it', { concerns: file });
  }
  if (!isPlainObject(raw))
    throw new KfError('bad_experiment', `${label}: the top level must be a table/object`, 'see experiments/_schema.md', { concerns: file });
  return raw;
}

function deepMerge(base: Obj, top: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(top)) {
    out[k] = isPlainObject(v) && isPlainObject(out[k]) ? deepMerge(out[k] as Obj, v) : v;
  }
  return out;
}

function loadLayered(file: string, stack: string[]): { merged: Obj; files: string[] } {
  const abs = path.resolve(file);
  if (stack.includes(abs)) {
    throw new KfError(
      'bad_experiment',
      `${displayPath(stack[stack.length - 1])}: field "extends" makes a cycle: ${[...stack, abs].map(displayPath).join(' -> ')}`,
      'remove one of the extends links',
      { concerns: abs },
    );
  }
  const origin: Origin = { label: displayPath(abs), baseDir: path.dirname(abs), file: abs };
  const layer = checkObject(readConfigFile(abs), EXPERIMENT_SCHEMA, '', origin);
  let merged: Obj = {};
  const files: string[] = [];
  for (const parent of (layer.extends as string[] | undefined) ?? []) {
    const parentAbs = expandPath(parent);
    if (!fs.existsSync(parentAbs)) {
      fail(origin, 'extends', `names ${displayPath(parentAbs)}, which does not exist`, 'paths in extends are relative to the file that declares them');
    }
    const p = loadLayered(parentAbs, [...stack, abs]);
    merged = deepMerge(merged, p.merged);
    files.push(...p.files.filter((f) => !files.includes(f)));
  }
  const { extends: _drop, ...own } = layer;
  void _drop;
  files.push(abs);
  return { merged: deepMerge(merged, own), files };
}

// ---------------------------------------------------------------------------
// Overrides

/** The schema type at a dotted path, with aliases resolved; or why the path does not exist. */
export function fieldTypeAt(dotted: string): { type: FieldType; canonical: string } | { error: string; hint: string } {
  const parts = dotted.split('.');
  let t: FieldType = { kind: 'object', fields: EXPERIMENT_SCHEMA };
  let inModels = false;
  const canon: string[] = [];
  for (const raw of parts) {
    if (!raw) return { error: `"${dotted}" has an empty path segment`, hint: 'write a dotted path like limits.maxErrors' };
    if (t.kind === 'map') {
      canon.push(raw);
      t = t.values;
      continue;
    }
    if (t.kind === 'any') {
      canon.push(raw);
      continue;
    }
    const fields: Record<string, Field> | undefined = t.kind === 'object' ? t.fields : t.kind === 'models' ? MODELS_SCHEMA : undefined;
    if (t.kind === 'models') inModels = true;
    if (!fields) return { error: `"${canon.join('.')}" is ${typeName(t)}, it has no field "${raw}"`, hint: 'override the field itself' };
    const part = inModels ? (ENDPOINT_ALIASES[raw] ?? raw) : raw;
    const f: Field | undefined = fields[part];
    if (!f) {
      const near = didYouMean(part, Object.keys(fields));
      const where = canon.length ? canon.join('.') : 'the top level';
      return {
        error: `"${[...canon, raw].join('.')}" is not a known field`,
        hint: near ? `did you mean "${[...canon, near].join('.')}"?` : `fields of ${where}: ${Object.keys(fields).join(', ')}`,
      };
    }
    canon.push(part);
    t = f.type;
  }
  return { type: t, canonical: canon.join('.') };
}

/** Parse an override's text into a value of the field's type. */
function parseOverrideValue(text: string, t: FieldType, label: string): unknown {
  const bad = (what: string): never => {
    throw new KfError('bad_override', `${label}: expected ${what}, got "${text}"`, 'fix the value (see experiments/_schema.md)');
  };
  const json = (): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };
  switch (t.kind) {
    case 'string':
      return text;
    case 'int':
    case 'number': {
      if (text.trim() === '' || !Number.isFinite(Number(text))) bad(typeName(t));
      return Number(text);
    }
    case 'boolean': {
      const v = text.toLowerCase();
      if (['true', 'yes', '1', 'on'].includes(v)) return true;
      if (['false', 'no', '0', 'off'].includes(v)) return false;
      return bad('true or false');
    }
    case 'seed':
      return /^-?\d+$/.test(text) ? Number(text) : text;
    case 'strings':
      return text.trim().startsWith('[')
        ? (json() ?? bad('a JSON list of strings'))
        : text
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
    case 'ints':
      return text.trim().startsWith('[')
        ? (json() ?? bad('a JSON list of integers'))
        : text.split(',').map((s) => (s.trim() === '' || !Number.isFinite(Number(s)) ? bad('comma-separated integers') : Number(s)));
    case 'object':
    case 'map':
    case 'models': {
      const v = json();
      if (!isPlainObject(v)) bad('a JSON object');
      return v;
    }
    case 'any': {
      // Numbers, booleans, null, lists and objects as JSON; anything else is a string.
      const v = json();
      return v === undefined ? text : v;
    }
  }
}

export interface ParsedOverride {
  /** The canonical dotted path (aliases resolved). */
  path: string;
  value: unknown;
  text: string;
}

/** `limits.maxErrors=5` -> {path, typed value}. Unknown paths fail with a did-you-mean. */
export function parseOverride(text: string): ParsedOverride {
  const eq = text.indexOf('=');
  if (eq <= 0)
    throw new KfError(
      'bad_override',
      `override "${text}" is not key.path=value`,
      'e.g. --override limits.maxErrors=5 or --override pipeline.settings.template=ours',
    );
  const key = text.slice(0, eq).trim();
  const raw = text.slice(eq + 1);
  if (key === 'extends' || key.startsWith('extends.'))
    throw new KfError('bad_override', `override "${text}": extends cannot be overridden`, 'edit the file, or point kf run at another experiment file');
  const at = fieldTypeAt(key);
  if ('error' in at) throw new KfError('bad_override', `override "${text}": ${at.error}`, at.hint);
  return { path: at.canonical, value: parseOverrideValue(raw, at.type, `override ${key}`), text };
}

function setPath(obj: Obj, parts: string[], value: unknown): Obj {
  const [head, ...rest] = parts;
  const out: Obj = { ...obj };
  out[head] = rest.length ? setPath(isPlainObject(obj[head]) ? (obj[head] as Obj) : {}, rest, value) : value;
  return out;
}

function nestedFromPath(parts: string[], value: unknown): Obj {
  return parts.reduceRight<unknown>((acc, k) => ({ [k]: acc }), value) as Obj;
}

// ---------------------------------------------------------------------------
// Final shape

function applyDefaults(obj: Obj, fields: Record<string, Field>): Obj {
  const out: Obj = { ...obj };
  for (const [k, f] of Object.entries(fields)) {
    if (out[k] === undefined && f.default !== undefined) out[k] = JSON.parse(JSON.stringify(f.default));
    if (f.type.kind === 'object' && isPlainObject(out[k])) out[k] = applyDefaults(out[k] as Obj, f.type.fields);
  }
  return out;
}

function checkRequired(obj: Obj, fields: Record<string, Field>, prefix: string, origin: Origin): void {
  for (const [k, f] of Object.entries(fields)) {
    const p = prefix ? `${prefix}.${k}` : k;
    if (obj[k] === undefined) {
      if (f.required) fail(origin, p, 'is required and missing', `add it (${f.doc})`);
      continue;
    }
    if (f.type.kind === 'object' && isPlainObject(obj[k])) checkRequired(obj[k] as Obj, f.type.fields, p, origin);
  }
}

function finalize(merged: Obj, origin: Origin, defaultName: string): ExperimentConfig {
  checkRequired(merged, EXPERIMENT_SCHEMA, '', origin);
  const c = applyDefaults(merged, EXPERIMENT_SCHEMA) as unknown as ExperimentConfig & Obj;
  if (!c.name) c.name = defaultName;
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(c.name)) fail(origin, 'name', `"${c.name}" is not usable in run ids`, 'use letters, digits, ".", "_", "+" and "-"');
  const known = BENCHMARK_PATH_KEYS[c.benchmark.name] ?? benchmarkSpec(c.benchmark.name)?.pathKeys ?? [];
  for (const k of Object.keys(c.benchmark.paths)) {
    if (!known.includes(k)) {
      const near = didYouMean(k, known);
      fail(
        origin,
        `benchmark.paths.${k}`,
        `is not a file of the ${c.benchmark.name} loader`,
        near ? `did you mean "benchmark.paths.${near}"?` : `its files: ${known.join(', ')}`,
      );
    }
  }
  if (!isPlainObject(c.pipeline.settings))
    fail(origin, 'pipeline.settings', `must be a table, got ${describeValue(c.pipeline.settings)}`, 'write it as a table of settings');
  if (c.index && !isPlainObject(c.index.options))
    fail(origin, 'index.options', `must be a table, got ${describeValue(c.index.options)}`, 'write it as a table of build options');
  if (c.index?.kb !== undefined && !/^remote:[\w.:-]+$/.test(c.index.kb))
    fail(
      origin,
      'index.kb',
      `must be remote:<package uuid>, got ${describeValue(c.index.kb)}`,
      'write it as kb = "remote:<uuid>" (or leave it out for a local index)',
    );
  if (c.index?.artifact && c.index.dir)
    fail(origin, 'index.artifact', 'is set together with index.dir', 'name the index one way: a folder (dir) or an artifact (artifact)');
  for (const k of Object.keys(c.caps)) {
    if (k in c.pipeline.settings) fail(origin, `caps.${k}`, `is also set in pipeline.settings.${k}`, 'set a budget in one place only (caps)');
  }
  // Typed settings: a configuration's family schema checks pipeline.settings + caps now, before any question runs.
  const typed = checkSettings(c.pipeline.name, { settings: c.pipeline.settings, caps: c.caps });
  if (typed.ok === false) fail(origin, typed.problem.field, typed.problem.problem, typed.problem.hint);
  return c;
}

/** The part of the config that changes answers (the hash input). */
export function resultAffecting(config: ExperimentConfig): Obj {
  let out = JSON.parse(canonicalJson(config)) as Obj;
  for (const p of NON_RESULT_PATHS) {
    const parts = p.split('.');
    const parent = parts.slice(0, -1).reduce<Obj | undefined>((o, k) => (o && isPlainObject(o[k]) ? (o[k] as Obj) : undefined), out);
    if (parent) delete parent[parts[parts.length - 1]];
  }
  out = JSON.parse(canonicalJson(out)) as Obj;
  return out;
}

export function configHash(config: ExperimentConfig): string {
  return shortHash(resultAffecting(config));
}

/** Dotted paths whose values differ between two configs (result-affecting part only), for "config changed" messages. */
export function configDiff(a: unknown, b: unknown, prefix = ''): string[] {
  if (canonicalJson(a) === canonicalJson(b)) return [];
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => configDiff(a[k], b[k], prefix ? `${prefix}.${k}` : k));
  }
  return [prefix || '(top level)'];
}

// ---------------------------------------------------------------------------
// Entry points

/** `m3d-s4` -> experiments/m3d-s4.toml (or .json); a path that exists is used as given. */
export function resolveExperimentRef(ref: string, experimentsDir = path.join(repoRoot(), 'experiments')): string {
  const candidates = [
    ref,
    `${ref}.toml`,
    `${ref}.json`,
    path.join(experimentsDir, ref),
    path.join(experimentsDir, `${ref}.toml`),
    path.join(experimentsDir, `${ref}.json`),
  ];
  for (const c of candidates) if (fs.existsSync(c) && fs.statSync(c).isFile()) return path.resolve(c);
  const available = fs.existsSync(experimentsDir)
    ? fs
        .readdirSync(experimentsDir)
        .filter((f) => /\.(toml|json)$/.test(f) && !f.startsWith('_'))
        .map((f) => f.replace(/\.(toml|json)$/, ''))
    : [];
  const near = didYouMean(path.basename(ref).replace(/\.(toml|json)$/, ''), available);
  throw new KfError(
    'experiment_missing',
    `no experiment file "${ref}" (looked in the current folder and ${displayPath(experimentsDir)})`,
    near
      ? `did you mean "${near}"?`
      : available.length
        ? `available: ${available.slice(0, 20).join(', ')}${available.length > 20 ? ', ...' : ''}`
        : 'pass the path of a .toml or .json experiment file',
    { concerns: ref },
  );
}

export interface LoadExperimentOptions {
  /** `key.path=value` strings (typed by the schema), applied in order after the files. */
  overrides?: string[];
  /** Relative override paths resolve against this folder (default the cwd). */
  cwd?: string;
  experimentsDir?: string;
}

function resolveLayers(merged: Obj, overrides: string[], cwd: string): Obj {
  let out = merged;
  for (const text of overrides) {
    const o = parseOverride(text);
    const origin: Origin = { label: `--override ${text}`, baseDir: cwd };
    const parts = o.path.split('.');
    // Validate the override as a one-field layer so it gets the same checks (and path normalisation) as a file.
    const checked = checkObject(nestedFromPath(parts, o.value), EXPERIMENT_SCHEMA, '', origin);
    const value = parts.reduce<unknown>((x, k) => (x as Obj)[k], checked);
    out = setPath(out, parts, value);
  }
  return out;
}

/** Load an experiment file (with its extends chain) and apply overrides. */
export function loadExperiment(ref: string, opts: LoadExperimentOptions = {}): ResolvedExperiment {
  loadPlugins(); // a plug-in's benchmarks and configurations are known before the file is checked
  const file = resolveExperimentRef(ref, opts.experimentsDir);
  const { merged, files } = loadLayered(file, []);
  const overrides = opts.overrides ?? [];
  const withOverrides = resolveLayers(merged, overrides, opts.cwd ?? process.cwd());
  const origin: Origin = { label: displayPath(file) + (overrides.length ? ' (with overrides)' : ''), baseDir: path.dirname(file), file };
  const config = finalize(withOverrides, origin, path.basename(file).replace(/\.(toml|json)$/i, ''));
  return { config, hash: configHash(config), file, files, overrides };
}

/** Build an experiment from an object (notebooks, tests): same checks as a file, relative paths against `baseDir`. */
export function experimentFromObject(
  raw: Record<string, unknown>,
  opts: LoadExperimentOptions & { label?: string; baseDir?: string; name?: string } = {},
): ResolvedExperiment {
  loadPlugins();
  const origin: Origin = { label: opts.label ?? 'experiment object', baseDir: opts.baseDir ?? process.cwd() };
  if ('extends' in raw) fail(origin, 'extends', 'is only supported in files', 'load the file with loadExperiment');
  const layer = checkObject(raw, EXPERIMENT_SCHEMA, '', origin);
  const overrides = opts.overrides ?? [];
  const merged = resolveLayers(layer, overrides, opts.cwd ?? process.cwd());
  const config = finalize(merged, origin, opts.name ?? 'experiment');
  return { config, hash: configHash(config), files: [], overrides };
}
