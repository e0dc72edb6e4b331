/**
 * How Python writes values where the runner mode must send the same characters: `str()` and
 * `repr()` of parsed JSON values, `json.dumps(..., ensure_ascii=False)` with its default separators,
 * and slices with Python's index rules.
 */

/** repr() of a str: single quotes unless the text holds one and no double quote. */
export function pyReprStr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const c of s) {
    if (c === '\\') out += '\\\\';
    else if (c === q) out += `\\${q}`;
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else out += c;
  }
  return `${q}${out}${q}`;
}

function pyNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : String(n);
}

/** repr() of a parsed JSON value. */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'string') return pyReprStr(v);
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return pyNumber(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${pyReprStr(k)}: ${pyRepr(x)}`)
    .join(', ')}}`;
}

/** str() of a parsed JSON value. */
export function pyStr(v: unknown): string {
  return typeof v === 'string' ? v : pyRepr(v);
}

/** json.dumps(v, ensure_ascii=False): ", " and ": " separators. */
export function pyJsonDumps(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
  if (typeof v === 'number') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(pyJsonDumps).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${JSON.stringify(k)}: ${pyJsonDumps(x)}`)
    .join(', ')}}`;
}

/** s[start:end] with Python's rules for negative indexes (code points). */
export function pySlice(s: string, start: number, end?: number): string {
  const cps = [...s];
  const n = cps.length;
  const norm = (i: number) => (i < 0 ? Math.max(0, n + i) : Math.min(i, n));
  const a = norm(start);
  const b = end === undefined ? n : norm(end);
  return b > a ? cps.slice(a, b).join('') : '';
}

/** raw[raw.find("{"): raw.rfind("}") + 1] parsed as JSON (throws like json.loads on failure). */
export function jsonBetweenBraces(raw: string): unknown {
  const a = raw.indexOf('{');
  const b = raw.lastIndexOf('}');
  // Python: find/rfind give -1 when absent; the slice follows Python's index rules.
  const cpA = [...raw.slice(0, Math.max(a, 0))].length - (a < 0 ? 1 : 0);
  const cpB = b < 0 ? 0 : [...raw.slice(0, b)].length + 1;
  return JSON.parse(pySlice(raw, cpA, cpB));
}
