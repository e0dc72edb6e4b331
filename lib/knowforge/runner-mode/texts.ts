/**
 * The released runner's texts for runner mode, read at run time from the user's checkout of
 * knowforge-bench (the folder `kf prompts import knowforge-bench` recorded, or KF_KNOWFORGE_BENCH):
 * the prompt constants of kfbench/prompts.py, and the literals the runner writes inline in
 * kfbench/pipeline.py, agent_loop.py, tools.py and materials.py (framings, guidance, notes, the tool
 * catalogue, the material blocks). Nothing of it is stored in this project.
 *
 * Each inline text is found by the code around it or by the expressions its f-string fills, never
 * by its wording; a checkout where one is missing fails with the name of what was looked for.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError } from '../../util/errors';
import { pythonStringConstants } from '../prompt-pack/python-strings';
import { KNOWFORGE_BENCH_PACK, readPackManifest } from '../prompt-pack/packs';
import { fieldsOf, literalRuns, readRun, type LitPart, type LiteralRun } from './python-literals';

export interface RunnerSource {
  file: string;
  src: string;
  runs: LiteralRun[];
}

export interface ToolText {
  name: string;
  description: string;
  params: string;
}

export interface RunnerTexts {
  checkout: string;
  constants: Map<string, string>;
  pipeline: RunnerSource;
  loop: RunnerSource;
  tools: RunnerSource;
  materials: RunnerSource;
  /** The tool catalogue entries in registry order. */
  toolSpecs: Map<string, ToolText>;
  locatorTools: string[];
  readerTools: string[];
}

/** The checkout folder: KF_KNOWFORGE_BENCH, else the one the imported pack names. */
export function runnerCheckout(explicit?: string): string {
  const dir = explicit ?? process.env.KF_KNOWFORGE_BENCH ?? readPackManifest(KNOWFORGE_BENCH_PACK).checkout;
  if (!fs.existsSync(path.join(dir, 'kfbench', 'pipeline.py')))
    throw new KfError(
      'runner_checkout',
      `${dir} is not a knowforge-bench checkout (no kfbench/pipeline.py)`,
      'set KF_KNOWFORGE_BENCH to your checkout, or run kf prompts import knowforge-bench <dir>',
      {
        concerns: dir,
      },
    );
  return dir;
}

function source(dir: string, rel: string): RunnerSource {
  const file = path.join(dir, rel);
  const src = fs.readFileSync(file, 'utf8');
  return { file, src, runs: literalRuns(src) };
}

export function missing(file: string, what: string): KfError {
  return new KfError('runner_text_missing', `${file}: ${what} was not found`, 'use a knowforge-bench release whose code has it, or report the change', {
    concerns: file,
  });
}

/** The run whose f-string fields are exactly `fields` (the n-th such run, default the first). */
export function runByFields(s: RunnerSource, fields: string[], nth = 0): LitPart[] {
  const hits = s.runs.filter((r) => {
    const f = fieldsOf(r.parts);
    return f.length === fields.length && f.every((x, i) => x === fields[i]);
  });
  const r = hits[nth];
  if (!r) throw missing(s.file, `the f-string with fields {${fields.join('}, {')}}`);
  return r.parts;
}

/** The first literal run after the first match of `anchor` (a code pattern) at or after `from`. */
export function runAfter(s: RunnerSource, anchor: RegExp, from = 0): { parts: LitPart[]; end: number } {
  const re = new RegExp(anchor.source, anchor.flags.includes('g') ? anchor.flags : `${anchor.flags}g`);
  re.lastIndex = from;
  const m = re.exec(s.src);
  if (!m) throw missing(s.file, `the text after ${anchor}`);
  const at = s.runs.find((r) => r.start >= m.index + m[0].length);
  if (!at) throw missing(s.file, `the text after ${anchor}`);
  return { parts: at.parts, end: at.end };
}

/** Offset of a code pattern (for anchoring a search within one function). */
export function offsetOf(s: RunnerSource, anchor: RegExp): number {
  const i = s.src.search(anchor);
  if (i < 0) throw missing(s.file, `${anchor}`);
  return i;
}

function nameList(s: RunnerSource, name: string): string[] {
  const m = new RegExp(`^${name}\\s*=\\s*\\[([^\\]]*)\\]`, 'm').exec(s.src);
  if (!m) throw missing(s.file, name);
  return [...m[1].matchAll(/"([^"]+)"|'([^']+)'/g)].map((x) => x[1] ?? x[2]);
}

/** ToolSpec("name", description..., params..., afn, materializer) entries of tools.py. */
function toolSpecs(s: RunnerSource): Map<string, ToolText> {
  const out = new Map<string, ToolText>();
  for (const m of s.src.matchAll(/ToolSpec\(\s*/g)) {
    const at = (m.index ?? 0) + m[0].length;
    if (s.src.slice(m.index! - 6, m.index).includes('class')) continue;
    const name = readRun(s.src, at);
    if (!name) continue;
    const comma1 = s.src.indexOf(',', name.end);
    const desc = readRun(s.src, comma1 + 1 + /^\s*/.exec(s.src.slice(comma1 + 1))![0].length);
    if (!desc) continue;
    const comma2 = s.src.indexOf(',', desc.end);
    const params = readRun(s.src, comma2 + 1 + /^\s*/.exec(s.src.slice(comma2 + 1))![0].length);
    if (!params) continue;
    const text = (p: LitPart[]) => p.map((x) => (typeof x === 'string' ? x : '')).join('');
    out.set(text(name.parts), { name: text(name.parts), description: text(desc.parts), params: text(params.parts) });
  }
  if (!out.size) throw missing(s.file, 'the ToolSpec catalogue');
  return out;
}

const cache = new Map<string, RunnerTexts>();

/** The runner's texts from a checkout (read once per process and folder). */
export function runnerTexts(checkout?: string): RunnerTexts {
  const dir = runnerCheckout(checkout);
  const hit = cache.get(dir);
  if (hit) return hit;
  const prompts = fs.readFileSync(path.join(dir, 'kfbench', 'prompts.py'), 'utf8');
  const tools = source(dir, 'kfbench/tools.py');
  const t: RunnerTexts = {
    checkout: dir,
    constants: pythonStringConstants(prompts),
    pipeline: source(dir, 'kfbench/pipeline.py'),
    loop: source(dir, 'kfbench/agent_loop.py'),
    tools,
    materials: source(dir, 'kfbench/materials.py'),
    toolSpecs: toolSpecs(tools),
    locatorTools: nameList(tools, 'LOCATOR_TOOLS'),
    readerTools: nameList(tools, 'READER_TOOLS'),
  };
  cache.set(dir, t);
  return t;
}

/** A prompts.py constant by name. */
export function constant(t: RunnerTexts, name: string): string {
  const v = t.constants.get(name);
  if (v === undefined) throw missing(path.join(t.checkout, 'kfbench/prompts.py'), `the constant ${name}`);
  return v;
}

/**
 * Fill an f-string's fields from `vars`: a field is a name in `vars`, or an `a or b or 'literal'`
 * chain whose operands are names in `vars` or literals (Python's `or`: the first non-empty value).
 */
export function fill(parts: readonly LitPart[], vars: Record<string, string | undefined>): string {
  return parts
    .map((p) => {
      if (typeof p === 'string') return p;
      if (p.expr in vars) return vars[p.expr] ?? '';
      const ops = p.expr.split(/\s+or\s+/);
      for (const op of ops) {
        const lit = /^(['"])(.*)\1$/s.exec(op.trim());
        const v = lit ? lit[2] : vars[op.trim()];
        if (lit === null && !(op.trim() in vars)) throw new Error(`runner text field {${p.expr}}: no value for ${op.trim()}`);
        if (v) return v;
      }
      return '';
    })
    .join('');
}

/** Fill an f-string's fields in order from `values`. */
export function fillSeq(parts: readonly LitPart[], values: string[]): string {
  let i = 0;
  return parts.map((p) => (typeof p === 'string' ? p : (values[i++] ?? ''))).join('');
}

/** The first run of a source whose fields are exactly `fields`. */
export function byFieldsExact(s: RunnerSource, fields: string[]): LitPart[] {
  return runByFields(s, fields);
}

/** The first run of a source whose fields pass `ok`. */
export function byFieldsCount(s: RunnerSource, ok: (f: string[]) => boolean): LitPart[] {
  const r = s.runs.find((x) => ok(fieldsOf(x.parts)));
  if (!r) throw missing(s.file, 'an f-string');
  return r.parts;
}

/** Is the literal run at [start, end) a dict key (`d["k"]`, `d.get("k")`, `d.get("k", x)`)? */
function isKey(src: string, r: LiteralRun): boolean {
  const before = src.slice(Math.max(0, r.start - 5), r.start);
  const after = src.slice(r.end, r.end + 1);
  return (before.endsWith('.get(') && (after === ')' || after === ',')) || (before.endsWith('[') && after === ']');
}

/**
 * The literal runs of one function (`def fn(` or `async def fn(`, to the next line indented no deeper
 * than its `def`), dict keys left out (unless `withKeys`), in source order: the texts a materializer or tool writes, picked
 * by their place in the function's code.
 */
export function fnRuns(s: RunnerSource, fn: string, withKeys = false): LitPart[][] {
  const m = new RegExp(`^([ \\t]*)(?:async )?def ${fn}\\(`, 'm').exec(s.src);
  if (!m) throw missing(s.file, `def ${fn}`);
  const indent = m[1].length;
  const re = /\n([ \t]*)(?=\S)/g;
  re.lastIndex = m.index + m[0].length;
  let end = s.src.length;
  for (let x = re.exec(s.src); x; x = re.exec(s.src)) {
    if (x[1].length <= indent && !s.src.startsWith(')', x.index + x[0].length) && !s.src.startsWith('#', x.index + x[0].length)) {
      end = x.index;
      break;
    }
  }
  return s.runs.filter((r) => r.start > m.index && r.start < end && (withKeys || !isKey(s.src, r))).map((r) => r.parts);
}

/** The i-th run of a function's runs, checked to have `fields` fields. */
export function nthRun(s: RunnerSource, runs: LitPart[][], i: number, fields: number, what: string): LitPart[] {
  const r = runs[i];
  if (!r || fieldsOf(r).length !== fields) throw missing(s.file, what);
  return r;
}
