/**
 * Reads string expressions out of the released runner's Python source at run time (never copied into
 * this project): a run of adjacent string literals, any quote style (single, double, triple), with
 * `f` and `r` prefixes, escapes decoded, `{{`/`}}` kept as braces, and each f-string field returned
 * as `{ expr }` (its Python expression text, conversions and format specs dropped). The runner mode
 * fills the fields itself, so the text it sends is the one Python would compute.
 *
 * `literalRuns` finds every such run in a source; callers pick theirs by the expressions it holds or
 * by the code around it (a structural anchor), never by its wording.
 */

export type LitPart = string | { expr: string };

export interface LiteralRun {
  /** Offset of the first literal's prefix in the source. */
  start: number;
  end: number;
  parts: LitPart[];
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };

/** The field text of `{...}` from offset `j` (just after `{`); returns the expression and the offset after `}`. */
function readField(src: string, j: number): { expr: string; end: number } {
  let depth = 0;
  let inner: string | undefined;
  let k = j;
  for (; k < src.length; k++) {
    const d = src[k];
    if (inner) {
      if (d === inner) inner = undefined;
    } else if (d === "'" || d === '"') inner = d;
    else if ('([{'.includes(d)) depth++;
    else if (')]}'.includes(d)) {
      if (depth === 0) break;
      depth--;
    }
  }
  let expr = src.slice(j, k).trim();
  expr = expr.replace(/![rsa]$/, '').trim();
  return { expr, end: k + 1 };
}

/** One literal at offset `i` (its prefix first); undefined when none starts there. */
export function readLiteral(src: string, i: number): { parts: LitPart[]; end: number } | undefined {
  const m = /^([rRfFbBuU]{0,2})("""|'''|"|')/.exec(src.slice(i, i + 5));
  if (!m) return undefined;
  const prefix = m[1].toLowerCase();
  const quote = m[2];
  const isF = prefix.includes('f');
  const raw = prefix.includes('r');
  const parts: LitPart[] = [];
  let lit = '';
  let j = i + m[0].length;
  while (j < src.length) {
    if (src.startsWith(quote, j)) return { parts: lit ? [...parts, lit] : parts, end: j + quote.length };
    const c = src[j];
    if (c === '\n' && quote.length === 1) return undefined;
    if (c === '\\' && !raw) {
      const e = src[j + 1];
      if (e === '\n') j += 2;
      else {
        lit += ESCAPES[e] ?? `\\${e}`;
        j += 2;
      }
    } else if (isF && (c === '{' || c === '}') && src[j + 1] === c) {
      lit += c;
      j += 2;
    } else if (isF && c === '{') {
      if (lit) parts.push(lit);
      lit = '';
      const f = readField(src, j + 1);
      // A format spec (`{x:.1f}`) is not used by the texts read here; keep the expression before it.
      parts.push({ expr: f.expr.replace(/:[^\])'"]*$/, '').trim() });
      j = f.end;
    } else {
      lit += c;
      j++;
    }
  }
  return undefined;
}

/** A run of adjacent literals from offset `i` (spaces, newlines and comments between them allowed). */
export function readRun(src: string, i: number): LiteralRun | undefined {
  const first = readLiteral(src, i);
  if (!first) return undefined;
  const parts = [...first.parts];
  let end = first.end;
  for (;;) {
    const ws = /^(?:\s|#[^\n]*)*/.exec(src.slice(end))![0];
    const next = readLiteral(src, end + ws.length);
    if (!next) break;
    parts.push(...next.parts);
    end = next.end;
  }
  return { start: i, end, parts: merge(parts) };
}

function merge(parts: LitPart[]): LitPart[] {
  const out: LitPart[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    if (typeof p === 'string' && typeof last === 'string') out[out.length - 1] = last + p;
    else out.push(p);
  }
  return out;
}

/** Every literal run of a source, in order (a run inside another is not listed again). */
export function literalRuns(src: string): LiteralRun[] {
  const out: LiteralRun[] = [];
  const re = /(?<![\w'"])(?:[rRfFbBuU]{1,2})?(?:"""|'''|"|')/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(src))) {
    const lineStart = src.lastIndexOf('\n', m.index) + 1;
    if (/^\s*#/.test(src.slice(lineStart, m.index))) {
      re.lastIndex = src.indexOf('\n', m.index) + 1 || src.length;
      continue;
    }
    const run = readRun(src, m.index);
    if (!run) {
      re.lastIndex = m.index + m[0].length;
      continue;
    }
    out.push(run);
    re.lastIndex = run.end;
  }
  return out;
}

/** The expressions of a run's fields, in order. */
export function fieldsOf(parts: readonly LitPart[]): string[] {
  return parts.filter((p): p is { expr: string } => typeof p !== 'string').map((p) => p.expr);
}

/** The run's text with each field filled by `fill(expr)`. */
export function fillRun(parts: readonly LitPart[], fill: (expr: string) => string): string {
  return parts.map((p) => (typeof p === 'string' ? p : fill(p.expr))).join('');
}

/** The plain text of a run without fields (throws when it has one). */
export function plainRun(parts: readonly LitPart[]): string {
  return fillRun(parts, (e) => {
    throw new Error(`unexpected field {${e}}`);
  });
}
