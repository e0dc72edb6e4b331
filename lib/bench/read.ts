/**
 * Reading raw benchmark files and checking their records. Every failure is a
 * KfError that names the file, the record (index and id when known) and the
 * field, so a broken download or a wrong path is fixed in one look.
 */
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { KfError } from '../util/errors';

/** Read a (possibly gzip-compressed) text file; gzip is detected from the magic bytes, not the name. */
export function readText(file: string, what: string): string {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
    throw new KfError(
      'bench_file_missing',
      `${what} ${file} cannot be read (${code})`,
      code === 'ENOENT' ? 'check the path (benchmarks live in ../shared/bench or where --questions/--corpus point)' : 'check the path and its permissions',
      { concerns: file, cause: e },
    );
  }
  if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) {
    try {
      buf = zlib.gunzipSync(buf);
    } catch (e) {
      throw new KfError('bench_bad_gzip', `${what} ${file} is a damaged gzip file: ${(e as Error).message}`, 'download the file again', {
        concerns: file,
        cause: e,
      });
    }
  }
  return buf.toString('utf8');
}

export function readJsonFile(file: string, what: string): unknown {
  const text = readText(file, what);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new KfError('bench_bad_json', `${what} ${file} is not valid JSON: ${(e as Error).message}`, 'download or regenerate the file', {
      concerns: file,
      cause: e,
    });
  }
}

/** JSON lines; a line that does not parse is an error naming its line number (benchmark files are not crash-truncated logs). */
export function readJsonLines(file: string, what: string): unknown[] {
  const out: unknown[] = [];
  const lines = readText(file, what).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    try {
      out.push(JSON.parse(line));
    } catch (e) {
      throw new KfError('bench_bad_json', `${what} ${file}: line ${i + 1} is not valid JSON: ${(e as Error).message}`, 'download the file again', {
        concerns: file,
        cause: e,
      });
    }
  }
  return out;
}

/**
 * Field checks for one record. `at` says where the record is ("record 12 (id abc)")
 * so the message names file + record + field.
 */
export class RecordReader {
  constructor(
    readonly file: string,
    readonly what: string,
  ) {}

  fail(at: string, field: string, problem: string, hint = 'fix the record or use the official file unchanged'): never {
    throw new KfError('bench_bad_record', `${this.what} ${this.file}: ${at}: field "${field}" ${problem}`, hint, { concerns: `${this.file}#${at}` });
  }

  object(v: unknown, at: string, field = '(record)'): Record<string, unknown> {
    if (!v || typeof v !== 'object' || Array.isArray(v)) this.fail(at, field, `must be an object, got ${describe(v)}`);
    return v as Record<string, unknown>;
  }

  array(v: unknown, at: string, field: string): unknown[] {
    if (!Array.isArray(v)) this.fail(at, field, `must be a list, got ${describe(v)}`);
    return v;
  }

  str(rec: Record<string, unknown>, field: string, at: string, opts: { allowEmpty?: boolean } = {}): string {
    const v = rec[field];
    if (typeof v !== 'string') this.fail(at, field, v === undefined ? 'is missing' : `must be a string, got ${describe(v)}`);
    if (!opts.allowEmpty && !v.trim()) this.fail(at, field, 'is empty');
    return v;
  }

  optStr(rec: Record<string, unknown>, field: string, at: string): string | undefined {
    const v = rec[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') this.fail(at, field, `must be a string when present, got ${describe(v)}`);
    return v;
  }

  num(rec: Record<string, unknown>, field: string, at: string, opts: { integer?: boolean } = {}): number {
    const v = rec[field];
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(at, field, v === undefined ? 'is missing' : `must be a number, got ${describe(v)}`);
    if (opts.integer && !Number.isInteger(v)) this.fail(at, field, `must be an integer, got ${v}`);
    return v;
  }

  bool(rec: Record<string, unknown>, field: string, at: string): boolean {
    const v = rec[field];
    if (typeof v !== 'boolean') this.fail(at, field, v === undefined ? 'is missing' : `must be true/false, got ${describe(v)}`);
    return v;
  }

  list(rec: Record<string, unknown>, field: string, at: string, opts: { optional?: boolean } = {}): unknown[] {
    const v = rec[field];
    if (v === undefined && opts.optional) return [];
    return this.array(v, at, field);
  }

  strList(rec: Record<string, unknown>, field: string, at: string, opts: { optional?: boolean } = {}): string[] {
    const xs = this.list(rec, field, at, opts);
    xs.forEach((x, i) => {
      if (typeof x !== 'string') this.fail(at, `${field}[${i}]`, `must be a string, got ${describe(x)}`);
    });
    return xs as string[];
  }
}

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `"${v.length > 40 ? v.slice(0, 40) + '...' : v}"`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

/** `record 3 (id xyz)`: how messages point at a record. */
export function at(i: number, id?: unknown): string {
  return typeof id === 'string' || typeof id === 'number' ? `record ${i} (id ${id})` : `record ${i}`;
}

/** Strip one pair of wrapping double quotes (WebQA wraps questions and answers in literal quotes). */
export function unquote(s: string): string {
  const t = s.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1).trim() : t;
}

/** Unique values, first-seen order. */
export function uniq<T>(xs: Iterable<T>): T[] {
  return [...new Set(xs)];
}
