/**
 * The offline extractive reader: answers a question from evidence facts
 * (lib/knowforge/offline/evidence.ts) with general heuristics.
 *
 * 1. Lookup: a fact "about" an entity (its subject, or a sentence naming it)
 *    that says some of the question's relation terms yields candidate values
 *    of the asked type: the value of an attribute ("Founded: 1927"), a series
 *    cell (the row of the asked year, in the column of the asked measure), or
 *    a span of a sentence near the matched words.
 * 2. Chains: a candidate that is itself a name is a bridge; looking up the
 *    remaining terms about it is the next hop (up to 3). The answer is the
 *    candidate whose chain covers the most (IDF-weighted) question terms,
 *    fewer hops breaking ties.
 * 3. Question shapes on top of the lookup: yes/no (compare the looked-up value
 *    with the claim: before/after a year, more/less than a number, equal to a
 *    name, present in a list; or both/same over two subjects), "A or B"
 *    choices (look up both, compare), superlatives and thresholds over series,
 *    lists (split list values), and refusal when no fact says the asked
 *    attribute at all, or the best chain stops short of it.
 *
 * Pieces: question.ts (what is asked), evidence.ts (facts and series),
 * reader-context.ts (term matching, "is this fact about X"), candidates.ts
 * (values of one fact), series-lookup.ts (tables and charts), lexicon.ts
 * (paraphrases). Deterministic; a 30K-character pool reads in a few ms.
 */
import { bridgeValues, factCandidates, sentenceSubject, typeBonus, YEAR_RE } from './candidates';
import { mentions, normName, sameName, type Fact } from './evidence';
import { analyzeQuestion, type QuestionInfo } from './question';
import {
  anchor,
  anchorOf,
  factsAbout,
  inQuestion,
  makeContext,
  termsOf,
  termWeights,
  unanchoredFacts,
  type ReadContext,
  type ValueType,
} from './reader-context';
import { wordKey } from './lexicon';
import { numericValue, seriesLookup } from './series-lookup';
import { entities, tokens } from '../../util/text-rules';
import type { SynthTask } from './tasks';

export type { ValueType } from './reader-context';

export interface Candidate {
  value: string;
  /** Facts of the chain, first hop first. */
  facts: Fact[];
  /** Indices of the question terms the chain says. */
  covered: Set<number>;
  /** Terms the last fact says (whether or not an earlier hop said them too). */
  last: number[];
  score: number;
  hops: number;
}

export interface ReaderAnswer {
  kind: QuestionInfo['type'];
  /** Share of the question's (IDF-weighted, non-type) terms the evidence chain says, 0..1. */
  coverage?: number;
  value: string | string[];
  refusal: boolean;
  facts: Fact[];
  explanation: string;
}

const MAX_HOPS = 3;
const BEAM = 8;
const NAME_TYPES = new Set<ValueType>(['person', 'place', 'entity']);
/** Every word capitalised (or a connector inside a name): "Columbus, Ohio", "Gerald Lee McRaney", "House of Lords". */
const NAME_LIKE = /^[A-Z\u00c0-\u00de][\w'’.-]*(?:,?\s+(?:(?:of|the|de|la|von|van|der|du|da|di|and|&)\s+)*[A-Z\u00c0-\u00de][\w'’.-]*)*$/;

// ---------------------------------------------------------------------------
// Chains

interface State {
  /** Block of the last fact: the next hop reads another block (more of the same block is the same hop). */
  block: number;
  entity: string | undefined;
  covered: Set<number>;
  facts: Fact[];
  score: number;
  seen: string[];
}

/**
 * Every chain of up to MAX_HOPS lookups from the start entities, and the
 * candidate answers of the asked type found along them.
 */
export function chainCandidates(ctx: ReadContext, starts: (string | undefined)[], type: ValueType, maxHops = MAX_HOPS): Candidate[] {
  const out: Candidate[] = [];
  let frontier: State[] = starts.map((e) => ({ block: -1, entity: e, covered: new Set<number>(), facts: [], score: 0, seen: e ? [e] : [] }));
  const topics = ctx.q.topics;
  for (let hop = 1; hop <= maxHops && frontier.length; hop++) {
    const next = new Map<string, State>();
    for (const st of frontier) {
      for (const f of st.entity ? factsAbout(ctx, st.entity) : unanchoredFacts(ctx)) {
        if (f.kind === 'row' || f.block === st.block) continue;
        const a = anchorOf(ctx, f, st.entity);
        if (!a) continue;
        const m = termsOf(ctx, f, st.covered);
        if (!m.length) continue;
        const gain = a * m.reduce((s, i) => s + ctx.weights[i], 0);
        const covered = new Set([...st.covered, ...m]);
        const exclude = [...st.seen, ...topics];
        const last = termsOf(ctx, f, new Set());
        for (const c of factCandidates(ctx, f, type, m, exclude).slice(0, 3)) {
          out.push({ value: c.value, facts: [...st.facts, f], covered, last, score: st.score + gain + c.bonus, hops: hop });
        }
        // The bridge itself may be the answer: "Which band ... released X?" -- the band one fact names and the next describes.
        if (hop > 1 && st.entity && NAME_TYPES.has(type) && !inQuestion(ctx, st.entity)) {
          const subj = f.kind === 'kv' ? (sameName(f.subject, st.entity) ? { name: f.subject! } : undefined) : sentenceSubject(f);
          // ... or the fact that named it described it as the asked kind of thing ("X is a Welsh folk band").
          const intro = st.facts[st.facts.length - 1];
          const introSubj = intro ? sentenceSubject(intro) : undefined;
          const introduced = introSubj && sameName(introSubj.name, st.entity) && termsOf(ctx, intro, new Set()).some((i) => ctx.q.terms[i].typeWord);
          // ... or this fact is about it and calls it the asked kind of thing ("Sandra Oh ... is a Canadian actress").
          const isSubject = Boolean(subj && sameName(subj.name, st.entity));
          const describedAsKind = isSubject && last.some((i) => ctx.q.terms[i].typeWord);
          // Without the asked kind said of it, a bridge is just a step (the film of "who directed the film ...").
          if (introduced || describedAsKind) {
            const name = isSubject ? subj!.name : introSubj!.name;
            const value = normName(name).length > normName(st.entity).length ? name : st.entity;
            out.push({ value, facts: [...st.facts, f], covered, last, score: st.score + gain + 0.6 + typeBonus(value, type), hops: hop });
          }
        }
        if (hop < maxHops) {
          for (const b of bridgeValues(ctx, f, m, exclude)) {
            const key = normName(b.value);
            const s: State = {
              block: f.block,
              entity: b.value,
              covered,
              facts: [...st.facts, f],
              score: st.score + gain + b.bonus * 0.5,
              seen: [...st.seen, b.value],
            };
            const prev = next.get(key);
            if (!prev || prev.score < s.score) next.set(key, s);
          }
        }
      }
      for (const h of seriesLookup(ctx, st.entity, st.covered, type)) {
        if (Array.isArray(h.value)) continue;
        const gain = h.covered.reduce((s, i) => s + ctx.weights[i], 0);
        out.push({
          value: h.value,
          facts: [...st.facts, h.fact],
          covered: new Set([...st.covered, ...h.covered]),
          last: h.all,
          score: st.score + gain + h.bonus,
          hops: hop,
        });
      }
    }
    frontier = [...next.values()].sort((a, b) => b.score - a.score).slice(0, BEAM);
  }
  return out;
}

/** Share of the question's non-type term weight a chain says. */
function coverageOf(ctx: ReadContext, c: Candidate): number {
  let total = 0;
  let got = 0;
  ctx.q.terms.forEach((t, i) => {
    if (t.typeWord) return;
    total += ctx.weights[i];
    if (c.covered.has(i)) got += ctx.weights[i];
  });
  return total ? got / total : 1;
}

function coveredWeight(ctx: ReadContext, c: Candidate): number {
  let w = 0;
  for (const i of c.covered) w += ctx.weights[i];
  return w;
}

/** Does the fact the value comes from say what is asked ("mayor" in "Who is the mayor of X?", "born" in "... of X born?")? */
function saysHead(ctx: ReadContext, c: Candidate): boolean {
  const heads = ctx.q.terms.map((t, i) => (t.head ? i : -1)).filter((i) => i >= 0);
  return !heads.length || heads.some((i) => c.last.includes(i));
}

function rank(ctx: ReadContext, cands: Candidate[]): Candidate[] {
  // Merge identical values: agreeing evidence adds a little.
  const byValue = new Map<string, { c: Candidate; n: number }>();
  for (const c of cands) {
    const k = normName(c.value) || c.value;
    const prev = byValue.get(k);
    if (!prev) byValue.set(k, { c, n: 1 });
    else {
      prev.n++;
      if (c.score > prev.c.score || (c.score === prev.c.score && c.hops < prev.c.hops)) prev.c = c;
    }
  }
  const merged = [...byValue.values()].map(({ c, n }) => ({ ...c, score: c.score + Math.min(0.3, 0.1 * (n - 1)) - 0.15 * (c.hops - 1) }));
  // Name variants ("McRaney", "Gerald McRaney", "Gerald Lee McRaney"; "Columbus" / "Columbus, Ohio") support the fullest form.
  if (NAME_TYPES.has(ctx.q.valueType) || ctx.q.valueType === 'span') {
    const toks = merged.map((c) => normName(c.value).split(' ').filter(Boolean));
    for (let i = 0; i < merged.length; i++) {
      if (!toks[i].length || !/^[A-Z]/.test(merged[i].value)) continue;
      let best = -1;
      for (let j = 0; j < merged.length; j++) {
        if (i === j || toks[i].length >= toks[j].length || !NAME_LIKE.test(merged[j].value) || !toks[i].every((w) => toks[j].includes(w))) continue;
        if (best < 0 || toks[j].length > toks[best].length) best = j;
      }
      if (best >= 0 && merged[i].score > merged[best].score) {
        merged[best] = {
          ...merged[best],
          score: merged[i].score + 0.05,
          facts: merged[i].facts,
          covered: merged[i].covered,
          last: merged[i].last,
          hops: merged[i].hops,
        };
      }
    }
  }
  return merged.sort((a, b) => b.score - a.score || a.hops - b.hops || a.facts[0].id - b.facts[0].id);
}

/**
 * Below this share of the question's terms, a chain has stopped short (e.g. at
 * the company of "the CEO of the company that makes X", when the pool says
 * nothing about its CEO): its value answers another question.
 */
export const MIN_COVERAGE = 0.3;

function supported(ctx: ReadContext, c: Candidate): boolean {
  return saysHead(ctx, c) && coverageOf(ctx, c) >= MIN_COVERAGE && coveredWeight(ctx, c) > 0;
}

function bestOf(ctx: ReadContext, starts: (string | undefined)[], type: ValueType): Candidate | undefined {
  return rank(ctx, chainCandidates(ctx, starts, type)).find((c) => supported(ctx, c));
}

function startsOf(q: QuestionInfo): (string | undefined)[] {
  if (!q.topics.length) return [undefined];
  // A description ("What is an American company that ...?") may fit a thing that no topic anchors.
  return q.description ? [...q.topics, undefined] : q.topics;
}

// ---------------------------------------------------------------------------
// Question shapes

function compareYesNo(value: string, claim: NonNullable<QuestionInfo['claim']>): boolean | undefined {
  if (claim.op === 'before' || claim.op === 'after') {
    const y = value.match(YEAR_RE);
    if (!y) return undefined;
    return claim.op === 'before' ? Number(y[0]) < Number(claim.value) : Number(y[0]) > Number(claim.value);
  }
  if (claim.op === '>' || claim.op === '<') {
    const v = numericValue(value);
    const c = numericValue(claim.value);
    if (v === undefined || c === undefined) return undefined;
    return claim.op === '>' ? v > c : v < c;
  }
  return sameName(value, claim.value) || mentions(value, claim.value);
}

function yesNo(ctx: ReadContext): { yes: boolean; facts: Fact[]; why: string } | undefined {
  const q = ctx.q;
  if (q.versus) {
    const { a, b, dir, temporal } = q.versus;
    const type: ValueType = temporal ? 'year' : 'number';
    const va = bestOf(ctx, [a], type);
    const vb = bestOf(ctx, [b], type);
    const na = va ? numericValue(va.value) : undefined;
    const nb = vb ? numericValue(vb.value) : undefined;
    if (va && vb && na !== undefined && nb !== undefined) {
      return { yes: dir === 'max' ? na > nb : na < nb, facts: [...va.facts, ...vb.facts], why: `${a}: ${va.value}; ${b}: ${vb.value}` };
    }
  }
  if (q.pair) {
    const { a, b, same } = q.pair;
    if (same) {
      const va = bestOf(ctx, [a], q.valueType === 'year' ? 'year' : 'entity');
      const vb = bestOf(ctx, [b], q.valueType === 'year' ? 'year' : 'entity');
      if (va && vb)
        return {
          yes: sameName(va.value, vb.value) || normName(va.value) === normName(vb.value),
          facts: [...va.facts, ...vb.facts],
          why: `${a}: ${va.value}; ${b}: ${vb.value}`,
        };
      return { yes: false, facts: [...(va?.facts ?? []), ...(vb?.facts ?? [])], why: `the materials do not show that ${a} and ${b} share it` };
    }
    // "Are A and B both X?": each must have a fact saying the predicate words.
    const support = (e: string) => {
      let best: Fact | undefined;
      let bestN = 0;
      for (const f of ctx.ev.facts) {
        if (!anchor(f, e)) continue;
        const n = termsOf(ctx, f, new Set()).length;
        if (n > bestN) {
          bestN = n;
          best = f;
        }
      }
      return { f: best, share: q.terms.length ? bestN / q.terms.length : 0 };
    };
    const sa = support(a);
    const sb = support(b);
    const facts = [sa.f, sb.f].filter((f): f is Fact => Boolean(f));
    return {
      yes: sa.share >= 0.5 && sb.share >= 0.5,
      facts,
      why: `${a} matches ${Math.round(sa.share * 100)}%, ${b} ${Math.round(sb.share * 100)}% of the predicate`,
    };
  }
  if (q.claim) {
    const claim = q.claim;
    // Terms of the claim itself are what is checked, not looked up.
    const claimKeys = new Set(tokens(claim.value).map(wordKey));
    // The claimed value is what the lookup must find, so it may not count as "already in the question".
    const qWithoutClaim = q.text.replace(new RegExp(claim.value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), ' ');
    const sub: ReadContext = {
      ...ctx,
      anchors: undefined,
      qNorm: normName(qWithoutClaim),
      q: { ...q, terms: q.terms.filter((t) => !claimKeys.has(t.key)), topics: q.topics.filter((e) => !sameName(e, claim.value)) },
    };
    sub.weights = termWeights(sub.q, ctx.ev);
    const type: ValueType =
      claim.op === 'before' || claim.op === 'after' ? 'year' : claim.op === 'eq' ? (/^[A-Z]/.test(claim.value) ? 'entity' : 'span') : 'number';
    const cands = rank(sub, chainCandidates(sub, startsOf(sub.q), type)).filter((c) => supported(sub, c));
    if (claim.op === 'eq') {
      // Any well-supported candidate equal to the claim -> yes; else compare with the best.
      const top = cands[0];
      if (!top) return undefined;
      const topW = top.score;
      const agree = cands.find((c) => c.score >= topW - 0.35 && compareYesNo(c.value, claim));
      const inFact = top.facts[top.facts.length - 1];
      const listed = inFact && (mentions(inFact.value ?? '', claim.value) || (inFact.kind !== 'kv' && mentions(inFact.text, claim.value)));
      const yes = Boolean(agree) || Boolean(listed);
      return { yes, facts: (agree ?? top).facts, why: `the evidence gives ${(agree ?? top).value}` };
    }
    const top = cands.find((c) => compareYesNo(c.value, claim) !== undefined);
    if (!top) return undefined;
    return { yes: compareYesNo(top.value, claim)!, facts: top.facts, why: `${top.value} vs ${claim.value}` };
  }
  return undefined;
}

/** Statement support: the best fact says most of the question's words, with the same polarity. */
function supportYesNo(ctx: ReadContext): { yes: boolean; facts: Fact[]; why: string } | undefined {
  let best: Fact | undefined;
  let bestW = 0;
  const total = ctx.weights.reduce((s, w) => s + w, 0) || 1;
  for (const f of ctx.ev.facts) {
    const a = ctx.q.topics.length ? Math.max(...ctx.q.topics.map((e) => anchor(f, e))) : 0.5;
    if (!a) continue;
    const w = termsOf(ctx, f, new Set()).reduce((s, i) => s + ctx.weights[i], 0) * a;
    if (w > bestW) {
      bestW = w;
      best = f;
    }
  }
  if (!best) return undefined;
  const neg = (t: string) => /\b(not|never|no|n't|neither|nor)\b/i.test(t);
  const share = bestW / total;
  return {
    yes: share >= 0.7 && neg(best.text) === ctx.q.negated,
    facts: [best],
    why: `the best matching statement says ${Math.round(share * 100)}% of the question`,
  };
}

function choice(ctx: ReadContext): { value: string; facts: Fact[]; why: string } | undefined {
  const c = ctx.q.choice!;
  const type: ValueType = c.temporal ? 'year' : 'number';
  const vals = c.options.map((o) => {
    const inner = entities(o).find((e) => !/^(?:the|a|an)$/i.test(e)) ?? o;
    const best = bestOf(ctx, [inner], type) ?? (c.temporal ? bestOf(ctx, [inner], 'date') : undefined);
    const v = best ? numericValue(best.value.match(YEAR_RE)?.[0] && c.temporal ? best.value.match(YEAR_RE)![0] : best.value) : undefined;
    return { option: o, inner, best, v };
  });
  const known = vals.filter((x) => x.v !== undefined);
  if (!known.length) return undefined;
  if (known.length === 1) {
    // One value only: nothing to compare; the option with evidence is the better guess.
    return { value: known[0].option, facts: known[0].best!.facts, why: `only ${known[0].option} has a value (${known[0].best!.value})` };
  }
  known.sort((x, y) => (c.dir === 'max' ? y.v! - x.v! : x.v! - y.v!));
  return { value: known[0].option, facts: known.flatMap((k) => k.best!.facts), why: known.map((k) => `${k.option}: ${k.best!.value}`).join('; ') };
}

/** No values to compare: the option the materials say most about (the answer is one of the options either way). */
function choiceBySupport(ctx: ReadContext): { value: string; facts: Fact[]; why: string } {
  const c = ctx.q.choice!;
  let best = { value: c.options[0], facts: [] as Fact[], w: -1 };
  for (const o of c.options) {
    for (const f of factsAbout(ctx, o)) {
      const a = anchor(f, o);
      if (!a) continue;
      const w = a * termsOf(ctx, f, new Set()).reduce((s, i) => s + ctx.weights[i], 0);
      if (w > best.w) best = { value: o, facts: [f], w };
    }
  }
  return { value: best.value, facts: best.facts, why: 'no values to compare; the option the materials say most about' };
}

function splitList(v: string): string[] {
  return v
    .split(/\s*(?:,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|;\s*|\/)\s*/)
    .map((x) =>
      x
        .trim()
        .replace(/^(?:the|a|an)\s+/i, '')
        .replace(/[.]+$/, ''),
    )
    .filter(Boolean);
}

function listAnswer(ctx: ReadContext): { value: string[]; facts: Fact[]; why: string } | undefined {
  const q = ctx.q;
  // Series: the years above a threshold.
  for (const e of startsOf(q)) {
    const hits = seriesLookup(ctx, e, new Set(), q.valueType).filter((h) => Array.isArray(h.value));
    if (hits.length) {
      hits.sort((a, b) => b.covered.length - a.covered.length);
      return { value: hits[0].value as string[], facts: [hits[0].fact], why: `rows of ${hits[0].fact.ref} past the threshold` };
    }
  }
  // A threshold needs values to compare: only series answer it.
  if (q.threshold) return undefined;
  const best = bestOf(ctx, startsOf(q), q.valueType === 'year' ? 'year' : 'span');
  if (!best) return undefined;
  const last = best.facts[best.facts.length - 1];
  const whole = last.kind === 'kv' ? (last.value ?? best.value) : best.value;
  const items = splitList(whole);
  return { value: items.length ? items : [best.value], facts: best.facts, why: `listed in ${last.ref}` };
}

// ---------------------------------------------------------------------------

export function read(task: Pick<SynthTask, 'question' | 'materials' | 'notes' | 'convention'>): ReaderAnswer {
  const ctx = makeContext(task);
  const { q, ev } = ctx;
  const refuse = (why: string): ReaderAnswer => ({ kind: q.type, value: '', refusal: true, facts: [], explanation: why });
  if (!ev.facts.length) return refuse('there are no materials');

  if (q.type === 'yes-no') {
    const r = yesNo(ctx) ?? supportYesNo(ctx);
    if (!r) return { kind: q.type, value: 'no', refusal: false, facts: [], explanation: 'no material supports the statement' };
    return { kind: q.type, value: r.yes ? 'yes' : 'no', refusal: false, facts: r.facts, explanation: r.why };
  }
  if (q.type === 'choice') {
    const r = choice(ctx) ?? choiceBySupport(ctx);
    return { kind: q.type, value: r.value, refusal: false, facts: r.facts, explanation: r.why };
  }
  if (q.type === 'list') {
    const r = listAnswer(ctx);
    if (r && r.value.length) return { kind: q.type, value: r.value.length === 1 ? r.value[0] : r.value, refusal: false, facts: r.facts, explanation: r.why };
    if (q.threshold) return refuse('no table or chart gives the values to compare with the threshold');
  }
  // Superlatives over a series ("In which year was X highest?").
  if (q.superlative) {
    for (const e of startsOf(q)) {
      const hits = seriesLookup(ctx, e, new Set(), q.valueType).filter((h) => !Array.isArray(h.value));
      if (hits.length)
        return {
          kind: q.type,
          value: hits[0].value as string,
          refusal: false,
          facts: [hits[0].fact],
          explanation: `the ${q.superlative.dir === 'max' ? 'largest' : 'smallest'} value in ${hits[0].fact.ref}`,
        };
    }
  }
  const type = q.type === 'list' ? q.valueType : (q.type as ValueType);
  const cands = rank(ctx, chainCandidates(ctx, startsOf(q), type));
  const best = cands.find((c) => supported(ctx, c));
  if (!best) {
    const heads = q.terms.filter((t) => t.head).map((t) => t.word);
    return refuse(
      heads.length && cands.length
        ? `no material says the ${heads.join(' ')} of ${q.topics.join(', ') || 'the subject'}`
        : `no material says what the question asks${q.topics.length ? ` about ${q.topics.join(', ')}` : ''}`,
    );
  }
  return {
    kind: q.type,
    coverage: coverageOf(ctx, best),
    value: best.value,
    refusal: false,
    facts: best.facts,
    explanation: best.hops > 1 ? `${best.hops} hops: ${best.facts.map((f) => f.ref).join(' -> ')}` : `stated in ${best.facts[0].ref}`,
  };
}

/** For inspection (lib/knowforge/scripts/offline-qa-eval.ts --explain): the question analysis and the best candidates with their support. */
export function explainRead(
  task: Pick<SynthTask, 'question' | 'materials' | 'notes'>,
  top = 10,
): {
  question: QuestionInfo;
  facts: number;
  series: number;
  candidates: { value: string; score: number; coverage: number; hops: number; supported: boolean; refs: string[]; last: string }[];
} {
  const ctx = makeContext(task);
  const { q, ev } = ctx;
  const type = q.type === 'yes-no' || q.type === 'choice' || q.type === 'list' ? q.valueType : (q.type as ValueType);
  const ranked = rank(ctx, chainCandidates(ctx, startsOf(q), type)).slice(0, top);
  return {
    question: q,
    facts: ev.facts.length,
    series: ev.series.length,
    candidates: ranked.map((c) => ({
      value: c.value,
      score: Math.round(c.score * 100) / 100,
      coverage: Math.round(coverageOf(ctx, c) * 100) / 100,
      hops: c.hops,
      supported: supported(ctx, c),
      refs: c.facts.map((f) => f.ref),
      last: c.facts[c.facts.length - 1].text.slice(0, 160),
    })),
  };
}

/** The most likely candidate regardless of support (conventions that never refuse). */
export function bestGuess(task: Pick<SynthTask, 'question' | 'materials' | 'notes'>): ReaderAnswer | undefined {
  const ctx = makeContext(task);
  const { q, ev } = ctx;
  const type = q.type === 'yes-no' || q.type === 'choice' || q.type === 'list' ? q.valueType : (q.type as ValueType);
  const cands = rank(ctx, chainCandidates(ctx, startsOf(q), type));
  if (cands[0]) return { kind: q.type, value: cands[0].value, refusal: false, facts: cands[0].facts, explanation: 'the closest candidate' };
  // Nothing matched a term: a value of the asked type from the fact that mentions a topic, else from any fact.
  const byTopic = ev.facts.filter((f) => q.topics.some((e) => anchor(f, e)));
  for (const f of [...byTopic, ...ev.facts]) {
    const c = factCandidates(ctx, f, type, [], q.topics)[0] ?? factCandidates(ctx, f, 'entity', [], q.topics)[0];
    if (c) return { kind: q.type, value: c.value, refusal: false, facts: [f], explanation: `the closest statement is ${f.ref}` };
  }
  return undefined;
}

/** The last resort of a convention that never refuses, with no materials to read: a guess from the question's own shape. */
export function blindGuess(question: string): string {
  const q = analyzeQuestion(question);
  if (q.type === 'yes-no') return 'no';
  if (q.choice) return q.choice.options[0];
  return q.topics[0] ?? q.terms[0]?.word ?? 'none';
}
