/**
 * Reads the module-level string constants of a Python source file without
 * running Python: `NAME = <expression>` at the start of a line, where the
 * expression is built from string literals (any quote style, adjacent literals
 * concatenated, escapes decoded), earlier constants, `+`, parentheses and
 * `.strip()` / `.rstrip()` / `.lstrip()`. Anything else (dicts, calls,
 * f-strings) is skipped: the constant is simply not in the result.
 *
 * Why a parser and not a regex: the released runner builds several prompts
 * from others (`A_V2 = A.rstrip() + "\n" + """..."""`), and the text sent must
 * be exactly the one Python would compute.
 */

class Unsupported extends Error {}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '0': '\0' };

class Reader {
  i: number;
  constructor(
    readonly src: string,
    start: number,
    readonly known: Map<string, string>,
  ) {
    this.i = start;
  }

  /** Skip spaces, comments and (inside brackets) newlines; a backslash-newline always continues the line. */
  skip(depth: number): void {
    for (;;) {
      const c = this.src[this.i];
      if (c === ' ' || c === '\t') this.i++;
      else if (c === '\\' && this.src[this.i + 1] === '\n') this.i += 2;
      else if (c === '#' && depth > 0) while (this.i < this.src.length && this.src[this.i] !== '\n') this.i++;
      else if ((c === '\n' || c === '\r') && depth > 0) this.i++;
      else return;
    }
  }

  literal(): string {
    const m = /^([rRbBuU]{0,2})('''|"""|'|")/.exec(this.src.slice(this.i, this.i + 5));
    if (!m) throw new Unsupported('not a string literal');
    if (/[bB]/.test(m[1])) throw new Unsupported('bytes literal');
    const raw = /[rR]/.test(m[1]);
    const quote = m[2];
    this.i += m[0].length;
    let out = '';
    for (;;) {
      if (this.i >= this.src.length) throw new Unsupported('unterminated string');
      if (this.src.startsWith(quote, this.i)) {
        this.i += quote.length;
        return out;
      }
      const c = this.src[this.i];
      if (c === '\n' && quote.length === 1) throw new Unsupported('newline in a one-line string');
      if (c === '\\') {
        const n = this.src[this.i + 1];
        if (raw) out += c + n;
        else if (n === '\n') out += '';
        else if (n in ESCAPES) out += ESCAPES[n];
        else if (n === 'x') out += String.fromCharCode(parseInt(this.src.slice(this.i + 2, this.i + 4), 16));
        else if (n === 'u') out += String.fromCharCode(parseInt(this.src.slice(this.i + 2, this.i + 6), 16));
        else out += c + n;
        this.i += n === 'x' ? 4 : n === 'u' ? 6 : 2;
        continue;
      }
      out += c;
      this.i++;
    }
  }

  /** A primary: adjacent literals, a known name, or a parenthesised expression; then any .strip()-style calls. */
  primary(depth: number): string {
    this.skip(depth);
    let value: string;
    const c = this.src[this.i];
    if (c === '(') {
      this.i++;
      value = this.expression(depth + 1);
      this.skip(depth + 1);
      if (this.src[this.i] !== ')') throw new Unsupported('expected )');
      this.i++;
    } else if (/[rRbBuU'"]/.test(c) && /^[rRbBuU]{0,2}['"]/.test(this.src.slice(this.i, this.i + 3))) {
      value = this.literal();
      for (;;) {
        const save = this.i;
        this.skip(depth);
        if (!/^[rRuU]{0,2}['"]/.test(this.src.slice(this.i, this.i + 3))) {
          this.i = save;
          break;
        }
        value += this.literal();
      }
    } else {
      const m = /^[A-Za-z_]\w*/.exec(this.src.slice(this.i));
      if (!m || !this.known.has(m[0])) throw new Unsupported(`unknown name ${m?.[0] ?? c}`);
      value = this.known.get(m[0])!;
      this.i += m[0].length;
    }
    for (;;) {
      const m = /^\.(strip|rstrip|lstrip)\(\)/.exec(this.src.slice(this.i));
      if (!m) return value;
      this.i += m[0].length;
      value = m[1] === 'strip' ? value.trim() : m[1] === 'rstrip' ? value.trimEnd() : value.trimStart();
    }
  }

  expression(depth: number): string {
    let value = this.primary(depth);
    for (;;) {
      this.skip(depth);
      if (this.src[this.i] !== '+') return value;
      this.i++;
      value += this.primary(depth);
    }
  }
}

/** The string constants of a Python module, in file order (later assignments replace earlier ones). */
export function pythonStringConstants(source: string): Map<string, string> {
  const src = source.replace(/\r\n/g, '\n');
  const known = new Map<string, string>();
  const assign = /^([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)[ \t]*/gm;
  for (let m = assign.exec(src); m; m = assign.exec(src)) {
    const r = new Reader(src, m.index + m[0].length, known);
    try {
      const value = r.expression(0);
      r.skip(0);
      const rest = src[r.i];
      if (rest === undefined || rest === '\n' || rest === '#' || rest === ';') {
        known.set(m[1], value);
        assign.lastIndex = r.i; // never look for assignments inside the text just read
      }
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
    }
  }
  return known;
}
