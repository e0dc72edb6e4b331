/**
 * Where a JSON text stops being JSON, as line and column (1-based), for error
 * messages of hand-written files (experiment and models configs). V8 says
 * "at position N" for some errors and nothing for others ("Unexpected token
 * '}', ... is not valid JSON"), so the place is found by a small scanner that
 * walks the grammar and stops at the first character it cannot take.
 */

export interface JsonErrorPlace {
  offset: number;
  line: number;
  column: number;
}

/** Line and column (1-based) of a character offset. */
export function lineColumnAt(text: string, offset: number): JsonErrorPlace {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { offset, line: lines.length, column: lines[lines.length - 1].length + 1 };
}

class Scanner {
  i = 0;
  constructor(readonly s: string) {}

  ws(): void {
    while (this.i < this.s.length && ' \t\n\r'.includes(this.s[this.i])) this.i++;
  }

  /** Walks one value; returns false at the first character that cannot continue it (this.i points there). */
  value(): boolean {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.container('}', true);
    if (c === '[') return this.container(']', false);
    if (c === '"') return this.string();
    for (const word of ['true', 'false', 'null']) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return true;
      }
    }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.s.slice(this.i, this.i + 400));
    if (!m) return false;
    this.i += m[0].length;
    return true;
  }

  string(): boolean {
    this.i++;
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === '"') {
        this.i++;
        return true;
      }
      if (c === '\n' || c < ' ') return false;
      if (c === '\\') {
        const e = this.s[this.i + 1];
        if (e === 'u' ? !/^[0-9a-fA-F]{4}$/.test(this.s.slice(this.i + 2, this.i + 6)) : !'"\\/bfnrt'.includes(e ?? 'x')) return false;
        this.i += e === 'u' ? 6 : 2;
      } else this.i++;
    }
    return false;
  }

  container(close: string, object: boolean): boolean {
    this.i++;
    this.ws();
    if (this.s[this.i] === close) {
      this.i++;
      return true;
    }
    for (;;) {
      if (object) {
        this.ws();
        if (this.s[this.i] !== '"' || !this.string()) return false;
        this.ws();
        if (this.s[this.i] !== ':') return false;
        this.i++;
      }
      if (!this.value()) return false;
      this.ws();
      if (this.s[this.i] === close) {
        this.i++;
        return true;
      }
      if (this.s[this.i] !== ',') return false;
      this.i++;
    }
  }
}

/** The place of the first syntax error of a JSON text; undefined when it parses. */
export function jsonErrorAt(text: string): JsonErrorPlace | undefined {
  const sc = new Scanner(text);
  const ok = sc.value();
  if (ok) {
    sc.ws();
    if (sc.i >= text.length) return undefined;
  }
  return lineColumnAt(text, sc.i);
}

/** `file:line:column` of a JSON text's syntax error, for messages ("file" when the place is not found). */
export function jsonErrorLabel(file: string, text: string): string {
  const at = jsonErrorAt(text);
  return at ? `${file}:${at.line}:${at.column}` : file;
}
