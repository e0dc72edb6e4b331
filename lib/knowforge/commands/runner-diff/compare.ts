/**
 * Request-for-request comparison of two model-request sequences (the released runner's and the
 * harness's, for one question): each request body compared whole after parsing (key order and JSON
 * spacing aside: Python and Node write the same object with different separators); runs of vision
 * calls compared as sets (the runner reads images concurrently, so their order is free).
 */
import { canonicalJson } from '../../../util/hash';

export type Body = Record<string, unknown>;

export interface FirstDifference {
  index: number;
  runner?: Body;
  harness?: Body;
  /** A line diff of the two bodies (pretty JSON), around the first differing line. */
  diff: string;
}

const isVision = (b: Body | undefined) => JSON.stringify(b?.messages ?? '').includes('"image_url"');

/** Sort each run of consecutive vision requests (their order is free). */
function normalised(xs: Body[]): Body[] {
  const out: Body[] = [];
  for (let i = 0; i < xs.length;) {
    if (!isVision(xs[i])) {
      out.push(xs[i++]);
      continue;
    }
    let j = i;
    while (j < xs.length && isVision(xs[j])) j++;
    out.push(...xs.slice(i, j).sort((a, b) => canonicalJson(a).localeCompare(canonicalJson(b))));
    i = j;
  }
  return out;
}

function pretty(b: Body | undefined): string[] {
  if (!b) return ['(no request)'];
  return JSON.stringify(JSON.parse(canonicalJson(b)), null, 1).split('\n');
}

export function lineDiff(a: Body | undefined, b: Body | undefined, context = 3): string {
  const x = pretty(a);
  const y = pretty(b);
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  const from = Math.max(0, i - context);
  // Long lines (a whole prompt) are shown around their first differing character.
  let k = 0;
  const a0 = x[i] ?? '';
  const b0 = y[i] ?? '';
  while (k < a0.length && k < b0.length && a0[k] === b0[k]) k++;
  const at = Math.max(0, k - 200);
  const cut = (s: string) => (s.length > 400 ? `${at ? '...' : ''}${s.slice(at, at + 400)}...` : s);
  return [
    ...x.slice(from, i).map((l) => `  ${cut(l)}`),
    ...x.slice(i, i + context).map((l) => `- ${cut(l)}`),
    ...y.slice(i, i + context).map((l) => `+ ${cut(l)}`),
  ].join('\n');
}

/** The first request where the two sequences differ, or undefined when they are equal. */
export function firstDifference(runner: Body[], harness: Body[]): FirstDifference | undefined {
  const r = normalised(runner);
  const h = normalised(harness);
  for (let i = 0; i < Math.max(r.length, h.length); i++) {
    if (r[i] && h[i] && canonicalJson(r[i]) === canonicalJson(h[i])) continue;
    return { index: i, runner: r[i], harness: h[i], diff: lineDiff(r[i], h[i]) };
  }
  return undefined;
}

const textOf = (c: unknown): string =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: { type?: string; text?: string }) => (p.type === 'text' ? (p.text ?? '') : '')).join('\n') : '';

/**
 * One runner process answers the questions one after another (one worker), so its requests come in
 * runs, one per question: a run starts at the first request that names the next question (every
 * question's first request carries it) and takes every request up to the next such one.
 */
export function splitByQuestion(xs: Body[], questions: string[]): Body[][] {
  const out: Body[][] = questions.map(() => []);
  let at = 0;
  for (const b of xs) {
    const text = ((b.messages as { content?: unknown }[] | undefined) ?? []).map((m) => textOf(m.content)).join('\n');
    const next = questions[at + 1];
    if (next !== undefined && next !== questions[at] && text.includes(next) && !text.includes(questions[at])) at++;
    out[at].push(b);
  }
  return out;
}
