/**
 * How runner mode reads an agent reply, with the released runner's rules: fences dropped, every JSON
 * object of the reply decoded and the first one naming final/tool/action taken; otherwise a one-pass
 * repair (unclosed strings and brackets, trailing commas, stray closers) and, failing that, the first
 * object found. Finishes are accepted in their variants ({"final"}, tool or action "final").
 */

type Obj = Record<string, unknown>;

/** The end (exclusive) of the JSON object opening at `i`, or -1 (string-aware bracket matching). */
function objectEnd(s: string, i: number): number {
  let depth = 0;
  let inStr = false;
  for (let j = i; j < s.length; j++) {
    const c = s[j];
    if (inStr) {
      if (c === '\\') j++;
      else if (c === '"') inStr = false;
    } else if (c === '"') inStr = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}

function repairJson(s: string): Obj | undefined {
  const start = s.indexOf('{');
  if (start < 0) return undefined;
  const out: string[] = [];
  const stack: string[] = [];
  let inStr = false;
  let escaped = false;
  for (const ch of s.slice(start)) {
    if (inStr) {
      out.push(ch);
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inStr = false;
      continue;
    }
    if (ch === '"') inStr = true;
    else if (ch === '{' || ch === '[') stack.push(ch === '{' ? '}' : ']');
    else if (ch === '}' || ch === ']') {
      if (!stack.length || stack[stack.length - 1] !== ch) continue;
      stack.pop();
      let j = out.length - 1;
      while (j >= 0 && ' \t\r\n'.includes(out[j])) j--;
      if (j >= 0 && out[j] === ',') out.splice(j, 1);
    }
    out.push(ch);
    if (!stack.length && (ch === '}' || ch === ']')) break;
  }
  if (inStr) {
    if (escaped) out.pop();
    out.push('"');
  }
  let tail = out.join('').trimEnd();
  if (tail.endsWith(',')) tail = tail.slice(0, -1);
  tail += [...stack].reverse().join('');
  try {
    const v = JSON.parse(tail) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
  } catch {
    return undefined;
  }
}

export function extractJson(text: string): Obj | undefined {
  if (!text) return undefined;
  let s = text.trim();
  if (s.startsWith('```'))
    s = s
      .replace(/^```(?:json)?\s*/, '')
      .replace(/`+$/, '')
      .trim();
  const objs: Obj[] = [];
  let idx = 0;
  for (;;) {
    const brace = s.indexOf('{', idx);
    if (brace < 0) break;
    const end = objectEnd(s, brace);
    let v: unknown;
    try {
      if (end < 0) throw new Error('open');
      v = JSON.parse(s.slice(brace, end));
    } catch {
      idx = brace + 1;
      continue;
    }
    if (v && typeof v === 'object' && !Array.isArray(v)) objs.push(v as Obj);
    idx = end;
  }
  const proto = objs.find((o) => 'final' in o || 'tool' in o || 'action' in o);
  if (proto) return proto;
  const repaired = repairJson(s);
  if (repaired && ['final', 'tool', 'action', 'thought'].some((k) => k in repaired)) return repaired;
  return objs[0] ?? repaired;
}

const FINAL = Symbol('none');

/** The finish payload of a reply, or FINAL_NONE when it is not a finish. */
export function normFinal(o: Obj): unknown {
  if ('final' in o) return o.final;
  if (o.tool === 'final' || o.action === 'final') {
    const a = (o.args && typeof o.args === 'object' && !Array.isArray(o.args) ? o.args : o) as Obj;
    for (const k of ['final', 'answer', 'content', 'text']) if (a[k] !== undefined && a[k] !== null) return a[k];
    const rest = Object.fromEntries(Object.entries(a).filter(([k]) => !['thought', 'tool', 'action'].includes(k)));
    return Object.keys(rest).length ? rest : true;
  }
  return FINAL_NONE;
}

export const FINAL_NONE: unknown = FINAL;
