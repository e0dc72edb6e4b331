/**
 * A parser for the Python literals benchmark files and official scorers use:
 * MMLongBench-Doc stores lists as Python reprs ("['White', '10%']", "[16, 19]")
 * and its scorer calls `eval()` on them. We parse the literal subset instead
 * of evaluating anything: strings (single/double quoted, escapes), numbers,
 * True/False/None, and nested lists/tuples.
 */

export type PyValue = string | number | boolean | null | PyValue[];

export class PyLiteralError extends Error {}

/** Parse one Python literal; throws PyLiteralError on anything else (as Python's eval would raise). */
export function parsePyLiteral(src: string): PyValue {
  const p = new Parser(src);
  p.ws();
  const v = p.value();
  p.ws();
  if (p.i < src.length) throw new PyLiteralError(`unexpected "${src.slice(p.i, p.i + 10)}" after the literal`);
  return v;
}

/** Python's `str()` of a parsed value (what `str(a)` gives inside the official scorer). */
export function pyStr(v: PyValue): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  // A JS number cannot tell 1 from 1.0: integral values print as Python ints (see parsePyStringList for exact spelling).
  if (typeof v === 'number') return pyFloatRepr(v, Number.isInteger(v) && !Object.is(v, -0));
  if (typeof v === 'string') return v;
  return `[${v.map(pyRepr).join(', ')}]`;
}

function pyRepr(v: PyValue): string {
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return pyStr(v);
}

/**
 * Python's repr of a number. `asInt` = the value is a Python int (Python keeps
 * int and float apart; JS does not, so callers say which).
 */
export function pyFloatRepr(x: number, asInt = false): string {
  if (asInt && Number.isInteger(x)) return String(BigInt(x));
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const ax = Math.abs(x);
  // Python's float repr: shortest round-trip digits, positional for 1e-4 <= |x| < 1e16, else exponent form.
  if (ax >= 1e16 || ax < 1e-4) {
    const [mant, exp] = x.toExponential().split('e');
    const e = Number(exp);
    return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  const s = String(x); // shortest round-trip digits, positional in this range
  return s.includes('.') ? s : `${s}.0`;
}

class Parser {
  i = 0;
  constructor(readonly s: string) {}

  ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i])) this.i++;
  }

  value(): PyValue {
    this.ws();
    const c = this.s[this.i];
    if (c === undefined) throw new PyLiteralError('unexpected end of input');
    if (c === '[' || c === '(') return this.list(c === '[' ? ']' : ')');
    if (c === "'" || c === '"') return this.string();
    // String prefixes (r, u, b) are rare in benchmark files; accept u'' and r''.
    if ((c === 'u' || c === 'r' || c === 'U' || c === 'R') && (this.s[this.i + 1] === "'" || this.s[this.i + 1] === '"')) {
      const raw = c === 'r' || c === 'R';
      this.i++;
      return this.string(raw);
    }
    for (const [word, v] of [
      ['True', true],
      ['False', false],
      ['None', null],
    ] as const) {
      if (this.s.startsWith(word, this.i) && !/[\w]/.test(this.s[this.i + word.length] ?? '')) {
        this.i += word.length;
        return v;
      }
    }
    return this.number();
  }

  list(close: string): PyValue[] {
    this.i++;
    const out: PyValue[] = [];
    this.ws();
    if (this.s[this.i] === close) {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.ws();
      const c = this.s[this.i];
      if (c === ',') {
        this.i++;
        this.ws();
        if (this.s[this.i] === close) {
          this.i++;
          return out;
        }
        continue;
      }
      if (c === close) {
        this.i++;
        return out;
      }
      throw new PyLiteralError(`expected "," or "${close}" at position ${this.i}`);
    }
  }

  string(raw = false): string {
    const q = this.s[this.i];
    const triple = this.s.startsWith(q.repeat(3), this.i);
    const end = triple ? q.repeat(3) : q;
    this.i += end.length;
    let out = '';
    for (;;) {
      if (this.i >= this.s.length) throw new PyLiteralError('unterminated string');
      if (this.s.startsWith(end, this.i)) {
        this.i += end.length;
        break;
      }
      const c = this.s[this.i];
      if (c === '\n' && !triple) throw new PyLiteralError('newline inside a string');
      if (c === '\\' && !raw) {
        const n = this.s[this.i + 1];
        const simple: Record<string, string> = {
          '\\': '\\',
          "'": "'",
          '"': '"',
          n: '\n',
          t: '\t',
          r: '\r',
          b: '\b',
          f: '\f',
          v: '\v',
          a: '\x07',
          '0': '\0',
          '\n': '',
        };
        if (n in simple) {
          out += simple[n];
          this.i += 2;
          continue;
        }
        const hexLen = n === 'x' ? 2 : n === 'u' ? 4 : n === 'U' ? 8 : 0;
        if (hexLen) {
          const hex = this.s.slice(this.i + 2, this.i + 2 + hexLen);
          if (!new RegExp(`^[0-9a-fA-F]{${hexLen}}$`).test(hex)) throw new PyLiteralError(`bad \\${n} escape`);
          out += String.fromCodePoint(parseInt(hex, 16));
          this.i += 2 + hexLen;
          continue;
        }
        // Unknown escapes stay as written (Python keeps the backslash).
        out += c;
        this.i++;
        continue;
      }
      out += c;
      this.i++;
    }
    // Adjacent literals concatenate ('a' 'b' == 'ab').
    const save = this.i;
    this.ws();
    if (this.s[this.i] === "'" || this.s[this.i] === '"') return out + this.string();
    this.i = save;
    return out;
  }

  number(): number {
    const m = /^[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?/.exec(this.s.slice(this.i));
    if (!m || !m[0] || m[0] === '+' || m[0] === '-') throw new PyLiteralError(`unexpected "${this.s.slice(this.i, this.i + 10)}"`);
    this.i += m[0].length;
    return Number(m[0].replace(/_/g, ''));
  }
}

/**
 * Parse a Python list literal into the Python `str()` of each element, as the
 * official scorer sees them after `eval()`: numbers keep Python's int/float
 * spelling ("16" vs "16.0"), judged from the literal text. A non-list literal
 * gives one element (the scorer wraps a non-list as [x]).
 */
export function parsePyStringList(src: string): string[] {
  const p = new Parser(src);
  p.ws();
  const c = src[p.i];
  if (c !== '[' && c !== '(') {
    // Not a list: a single value (the scorer wraps it: [pred]).
    const v = parsePyLiteral(src);
    return [elementStr(v, src.trim())];
  }
  const close = c === '[' ? ']' : ')';
  p.i++;
  const out: string[] = [];
  p.ws();
  if (src[p.i] === close) {
    p.i++;
  } else {
    for (;;) {
      p.ws();
      const start = p.i;
      const v = p.value();
      out.push(elementStr(v, src.slice(start, p.i).trim()));
      p.ws();
      const d = src[p.i];
      if (d === ',') {
        p.i++;
        p.ws();
        if (src[p.i] === close) {
          p.i++;
          break;
        }
        continue;
      }
      if (d === close) {
        p.i++;
        break;
      }
      throw new PyLiteralError(`expected "," or "${close}" at position ${p.i}`);
    }
  }
  p.ws();
  if (p.i < src.length) throw new PyLiteralError(`unexpected "${src.slice(p.i, p.i + 10)}" after the list`);
  return out;
}

function elementStr(v: PyValue, text: string): string {
  if (typeof v === 'number') {
    const isFloatLiteral = /[.eE]/.test(text.replace(/^[+-]/, ''));
    return pyFloatRepr(v, !isFloatLiteral);
  }
  return pyStr(v);
}
