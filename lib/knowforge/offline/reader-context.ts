/**
 * What the offline reader knows while answering one question: the analysed
 * question, the evidence facts, IDF-like term weights, and memoised lookups.
 * Also the two questions every step asks of a fact: which of the question's
 * relation terms does it say (termsOf), and is it about a given entity
 * (anchor / factsAbout).
 */
import { mentionStrength, mentions, normName, sameName, type Evidence, type Fact } from './evidence';
import { wordKey } from './lexicon';
import { analyzeQuestion, type QuestionInfo, type RelTerm } from './question';
import { buildEvidence } from './evidence';
import { tokens } from '../../util/text-rules';
import type { SynthTask } from './tasks';

/** The type of a single answer value (lists, choices and yes/no are built from these). */
export type ValueType = QuestionInfo['valueType'];

export interface ReadContext {
  q: QuestionInfo;
  ev: Evidence;
  /** Weight of each question term (compressed IDF over the facts). */
  weights: number[];
  /** Normalised question, for "already in the question" checks. */
  qNorm: string;
  /** anchor() results by fact id and entity. */
  anchors?: Map<string, number>;
  /** Fact ids by normalised word of their text and subject (to find the facts about an entity fast). */
  index?: Map<string, number[]>;
}

export function makeContext(task: Pick<SynthTask, 'question' | 'materials' | 'notes'>): ReadContext {
  const q = analyzeQuestion(task.question);
  const ev = buildEvidence(task);
  return { q, ev, weights: termWeights(q, ev), qNorm: normName(task.question) };
}

/** Is a value already part of the question (a topic, a claim, a named option)? */
export function inQuestion(ctx: ReadContext, v: string): boolean {
  const n = normName(v);
  return !n || ` ${ctx.qNorm} `.includes(` ${n} `);
}

// ---------------------------------------------------------------------------
// Term matching

export function termWeights(q: QuestionInfo, ev: Evidence): number[] {
  const n = ev.facts.length || 1;
  return q.terms.map((t) => {
    let df = 0;
    for (const f of ev.facts) if (matchesTerm(f.keys, t)) df++;
    const idf = Math.log((n + 1) / (df + 0.5));
    // Compressed IDF: rarer words count more, but a word every block repeats still counts.
    const w = Math.max(0.5, Math.min(2, 0.5 + 0.5 * idf));
    return t.typeWord ? w * 0.5 : w;
  });
}

export function matchesTerm(keys: Set<string>, t: RelTerm): boolean {
  for (const k of t.keys) if (keys.has(k)) return true;
  return false;
}

/** Terms of the question a fact says (its attribute for kv facts, its words otherwise), minus those already covered. */
export function termsOf(ctx: ReadContext, f: Fact, covered: Set<number>): number[] {
  const out: number[] = [];
  const numericKv = f.kind === 'kv' && /^[$€£]?-?\d[\d,.]*\s*\S{0,12}$/.test((f.value ?? '').trim());
  ctx.q.terms.forEach((t, i) => {
    if (covered.has(i) || !matchesTerm(f.keys, t)) return;
    if (AGENT.test(t.word) && !saysAgent(f, t, numericKv)) return;
    out.push(i);
  });
  return out;
}

/**
 * "founder" (a person) is said by "Founder: X", "the founder of", "founded by X",
 * not by "Founded: 1984" or "X was founded in 1984" (the event, not the agent).
 */
function saysAgent(f: Fact, t: RelTerm, numericKv: boolean): boolean {
  const root = /^(.{4,})(?:er|or)$/.exec(t.key)?.[1];
  if (!root) return true;
  const words = f.kind === 'kv' ? tokens(f.key ?? '') : tokens(f.text);
  // Only a match through the bare verb of the same root ("founded" for "founder") is in doubt.
  const viaVerb = words.some((w) => wordKey(w) === root);
  const viaOther = words.some((w) => t.keys.has(wordKey(w)) && wordKey(w) !== root);
  if (!viaVerb || viaOther) return true;
  if (f.kind === 'kv') return !numericKv;
  for (let i = 0; i < words.length; i++) if (wordKey(words[i]) === root && words.slice(i + 1, i + 4).includes('by')) return true;
  return false;
}

const AGENT = /(?:er|or|ist)s?$/;

/** How strongly a fact is about an entity: names it as subject (1), names it in its text (1), or sits in its block (0.6). */
export function anchorOf(ctx: ReadContext, f: Fact, entity: string | undefined): number {
  if (!entity) return 0.5;
  const memo = (ctx.anchors ??= new Map());
  const k = `${f.id}\u0000${entity}`;
  let a = memo.get(k);
  if (a === undefined) {
    a = anchor(f, entity);
    memo.set(k, a);
  }
  return a;
}

/** Without an entity to start from: the facts that say the most question terms (bounded, so a long pool stays fast). */
export function unanchoredFacts(ctx: ReadContext): Fact[] {
  if (ctx.ev.facts.length <= UNANCHORED_LIMIT) return ctx.ev.facts;
  return ctx.ev.facts
    .map((f) => ({ f, w: termsOf(ctx, f, new Set()).reduce((s, i) => s + ctx.weights[i], 0) }))
    .filter((x) => x.w > 0)
    .sort((a, b) => b.w - a.w || a.f.id - b.f.id)
    .slice(0, UNANCHORED_LIMIT)
    .map((x) => x.f);
}

const UNANCHORED_LIMIT = 25;

/** The facts that may be about an entity: those whose text or subject holds every word of its name. */
export function factsAbout(ctx: ReadContext, entity: string | undefined): Fact[] {
  if (!entity) return ctx.ev.facts;
  if (!ctx.index) {
    const index = new Map<string, number[]>();
    for (const f of ctx.ev.facts) {
      const words = new Set(`${normName(f.text)} ${normName(f.subject ?? '')}`.split(' '));
      for (const w of words) {
        if (!w) continue;
        const list = index.get(w);
        if (list) list.push(f.id);
        else index.set(w, [f.id]);
      }
    }
    ctx.index = index;
  }
  const words = normName(entity).split(' ').filter(Boolean);
  if (!words.length) return [];
  let ids: number[] | undefined;
  for (const w of words) {
    const list = ctx.index.get(w) ?? [];
    if (!ids || list.length < ids.length) ids = list;
  }
  return (ids ?? []).map((id) => ctx.ev.facts[id]);
}

export function anchor(f: Fact, entity: string | undefined): number {
  if (!entity) return 0.5;
  if (f.kind === 'kv' || f.kind === 'row') {
    if (sameName(f.subject, entity)) return 1;
    if (f.key && mentions(f.key, entity)) return 0.9;
    return f.kind === 'row' && mentions(f.text, entity) ? 0.9 : 0;
  }
  const m = mentionStrength(f.text, entity);
  if (m >= 1) return 1;
  if (sameName(f.subject, entity)) return 0.6;
  return m;
}
