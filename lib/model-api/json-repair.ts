/**
 * Tolerant JSON for model replies. Models wrap JSON in code fences, put prose
 * around it, leave trailing commas, or get cut off by the token limit mid-string.
 * The agent runner's rules (spec "Agent loop protocol"): strip code fences, take
 * the FIRST JSON object that has one of the wanted keys (final/tool/action), and
 * repair trailing commas and unclosed strings/brackets. Anything else is "bad
 * JSON" and the caller decides (retry with a hint, stop).
 */

export interface ParsedJson<T = Record<string, unknown>> {
  value: T;
  /** True when the text needed repairs (fences stripped does not count). */
  repaired: boolean;
  /** The JSON source text the value came from (after fence stripping, before repair). */
  source: string;
}

/** Remove Markdown code fences (```json ... ```), keeping what is inside; an unclosed fence (truncated reply) keeps the rest. */
export function stripCodeFences(text: string): string {
  if (!text.includes('```')) return text;
  const parts: string[] = [];
  const re = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)(?:```|$)/g;
  let m: RegExpExecArray | null;
  let last = 0;
  while ((m = re.exec(text))) {
    parts.push(text.slice(last, m.index), m[1]);
    last = re.lastIndex;
    if (m[0].length === 0) re.lastIndex++;
  }
  parts.push(text.slice(last));
  return parts.join('\n');
}

/**
 * End index (exclusive) of the balanced JSON value starting at `start` (a `{` or
 * `[`), aware of strings and escapes; -1 when the text ends before it closes.
 */
export function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  let escaped = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') stack.push('}');
    else if (c === '[') stack.push(']');
    else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return i + 1; // mismatched: let the repairer deal with the slice
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * Repair the usual damage in model-written JSON so JSON.parse can read it:
 * trailing commas, raw newlines inside strings, an unclosed string, unclosed
 * brackets (closed in the right order), a dangling `"key":` or `,` at the cut,
 * Python literals (True/False/None) outside strings, and single-quoted strings.
 */
export function repairJson(src: string): string {
  let out = '';
  const stack: string[] = [];
  let inString = false;
  let quote = '"';
  let escaped = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (inString) {
      if (escaped) {
        escaped = false;
        out += c;
      } else if (c === '\\') {
        escaped = true;
        out += c;
      } else if (c === quote) {
        inString = false;
        out += '"';
      } else if (c === '"' && quote === "'") {
        out += '\\"';
      } else if (c === '\n') {
        out += '\\n';
      } else if (c === '\r') {
        out += '\\r';
      } else if (c === '\t') {
        out += '\\t';
      } else {
        out += c;
      }
      continue;
    }
    if (c === '"' || c === "'") {
      inString = true;
      quote = c;
      out += '"';
    } else if (c === '{' || c === '[') {
      stack.push(c === '{' ? '}' : ']');
      out += c;
    } else if (c === '}' || c === ']') {
      out = dropTrailingComma(out);
      // Close anything left open inside before this closer (e.g. `{"a": [1, 2}`).
      while (stack.length && stack[stack.length - 1] !== c) out = closeOne(out, stack.pop()!);
      if (stack.length) {
        stack.pop();
        out += c;
      }
      if (stack.length === 0) {
        // The top-level value is complete: ignore trailing prose.
        return out;
      }
    } else if (/[-\d]/.test(c)) {
      const num = /^-?\d*\.?\d+(?:[eE][+-]?\d+)?/.exec(src.slice(i));
      out += num ? num[0] : c;
      if (num) i += num[0].length - 1;
    } else if (/[A-Za-z]/.test(c)) {
      const word = /^[A-Za-z_]+/.exec(src.slice(i))![0];
      const map: Record<string, string> = { True: 'true', False: 'false', None: 'null', true: 'true', false: 'false', null: 'null' };
      out += map[word] ?? JSON.stringify(word); // a bare word becomes a string rather than failing
      i += word.length - 1;
    } else {
      out += c;
    }
  }
  if (inString) {
    if (escaped) out = out.slice(0, -1); // a cut right after a backslash
    out += '"';
  }
  while (stack.length) out = closeOne(out, stack.pop()!);
  return out;
}

function dropTrailingComma(s: string): string {
  return s.replace(/,\s*$/, '');
}

/** Close one open container, first completing a dangling `"key":` or `"key"` at the end. */
function closeOne(out: string, closer: string): string {
  let s = dropTrailingComma(out.replace(/\s+$/, ''));
  if (closer === '}') {
    if (/:\s*$/.test(s)) s += ' null';
    else if (/[{,]\s*"(?:[^"\\]|\\.)*"$/.test(s)) s += ': null';
  }
  return s + closer;
}

/** JSON.parse, then the repaired text; undefined when neither parses. */
export function parseJsonLoose(text: string): { value: unknown; repaired: boolean } | undefined {
  try {
    return { value: JSON.parse(text), repaired: false };
  } catch {
    /* try a repair */
  }
  try {
    return { value: JSON.parse(repairJson(text)), repaired: true };
  } catch {
    return undefined;
  }
}

const MAX_CANDIDATES = 64;

/**
 * The first JSON object in `text` (fences stripped) that satisfies `accept`
 * (default: any object). Candidates are tried in order of their opening brace,
 * so an inner object is found when the outer one lacks the wanted keys.
 */
export function findJsonObject<T = Record<string, unknown>>(
  text: string,
  accept: (v: Record<string, unknown>) => boolean = () => true,
): ParsedJson<T> | undefined {
  const body = stripCodeFences(text);
  let tried = 0;
  for (let i = body.indexOf('{'); i >= 0 && tried < MAX_CANDIDATES; i = body.indexOf('{', i + 1), tried++) {
    const end = balancedEnd(body, i);
    const source = end < 0 ? body.slice(i) : body.slice(i, end);
    const parsed = parseJsonLoose(source);
    if (!parsed || !parsed.value || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) continue;
    if (accept(parsed.value as Record<string, unknown>)) return { value: parsed.value as T, repaired: parsed.repaired, source };
  }
  return undefined;
}

/** The agent protocol's keys: a round's object has `final`, `tool` or `action`. */
export const AGENT_KEYS = ['final', 'tool', 'action'] as const;

/** The first JSON object having final/tool/action (spec "Agent loop protocol"). */
export function parseAgentObject(text: string): ParsedJson | undefined {
  return findJsonObject(text, (v) => AGENT_KEYS.some((k) => k in v));
}

/** Parse a tool call's raw arguments text into an object (repairing as above); undefined when it is not an object. */
export function parseToolArguments(raw: string): { value: Record<string, unknown>; repaired: boolean } | undefined {
  if (!raw.trim()) return { value: {}, repaired: false };
  const p = parseJsonLoose(stripCodeFences(raw).trim());
  if (p && p.value && typeof p.value === 'object' && !Array.isArray(p.value)) return { value: p.value as Record<string, unknown>, repaired: p.repaired };
  const found = findJsonObject(raw);
  return found ? { value: found.value, repaired: true } : undefined;
}
