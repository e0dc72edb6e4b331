/**
 * Candidate values of one fact for the asked type: the value of an attribute
 * ("Founded: 1927"), or spans of a sentence -- numbers, years, dates, names,
 * the phrase after the matched relation word, the thing a sentence describes
 * -- ranked by closeness to the matched words and by how well they fit the
 * asked type. Also the names a fact offers as bridges to the next hop.
 */
import { mentions, sameName, type Fact } from './evidence';
import { wordKey } from './lexicon';
import { inQuestion, type ReadContext, type ValueType } from './reader-context';
import { entities, numbers, tokens } from '../../util/text-rules';

const MONTHS = 'January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec';
export const DATE_RE = new RegExp(
  `\\b(?:(?:${MONTHS})\\.? \\d{1,2}(?:st|nd|rd|th)?,? \\d{4}|\\d{1,2} (?:${MONTHS}),? \\d{4}|\\d{4}-\\d{2}-\\d{2}|(?:${MONTHS}),? \\d{4})\\b`,
  'g',
);
export const YEAR_RE = /\b(1[0-9]{3}|20[0-9]{2})\b/g;
const ORG_WORDS =
  /\b(?:Inc|Corp|Corporation|Company|Co|Ltd|LLC|plc|Group|Holdings|Industries|University|College|Institute|Laboratory|Academy|School|Foundation|Association|Society|Records|Studios|Airlines|Bank|Church|Club|Council|Party|Museum|Hospital|Agency|Ministry|Press|Publishing|Publishers|Team|Band|Orchestra|Federation|League|Systems|Technologies)\b/;

export interface RawCand {
  value: string;
  bonus: number;
}

/** "7,852 g" -> "7,852" when the question names the unit ("in grams"); other values unchanged. */
export function stripUnits(value: string, units: string[]): string {
  let v = value.trim();
  if (!units.length) return v;
  for (const u of [...units].sort((a, b) => b.length - a.length)) {
    const esc = u.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    v = v
      .replace(new RegExp(`\\s*\\b${esc}$`, 'i'), '')
      .replace(new RegExp(`\\s*${esc}$`, 'i'), (m) => (/^[a-z%]/i.test(u) && /\d$/.test(v.slice(0, v.length - m.length)) ? '' : m));
  }
  return v.trim();
}

/** The part of a value that fits the asked type ("1,406 g" for a number, "1954" of "born 1954" for a year), or undefined. */
export function fitValue(ctx: ReadContext, value: string, type: ValueType): string | undefined {
  const v = value.trim();
  switch (type) {
    case 'year': {
      const y = v.match(YEAR_RE);
      return y ? y[0] : undefined;
    }
    case 'date': {
      const d = v.match(DATE_RE);
      if (d) return d[0];
      const y = v.match(YEAR_RE);
      return y ? y[0] : undefined;
    }
    case 'number': {
      const ns = numbers(v);
      if (!ns.length) return undefined;
      return stripUnits(ns[0].text, ctx.q.units);
    }
    case 'person':
    case 'place':
    case 'entity':
      if (/^[$€£]?-?\d[\d,.]*\s*%?$/.test(v)) return undefined;
      return v;
    default:
      return v;
  }
}

export function typeBonus(value: string, type: ValueType): number {
  const cap = /^[A-Z\u00c0-\u00de]/.test(value);
  // "American", "Danish": an adjective of origin names no person, place or thing.
  if ((type === 'person' || type === 'place' || type === 'entity') && DEMONYM.test(value)) return -0.4;
  if (type === 'person') return (cap ? 0.2 : -0.3) + (ORG_WORDS.test(value) ? -0.4 : 0) + (/\d/.test(value) ? -0.3 : 0);
  if (type === 'place' || type === 'entity') return (cap ? 0.2 : -0.2) + (/\d/.test(value) ? -0.2 : 0);
  return 0;
}

export interface Span {
  start: number;
  end: number;
}

/** Spans of the words of a sentence whose keys match the given terms. */
export function termSpans(ctx: ReadContext, text: string, termIdx: number[]): Span[] {
  if (!termIdx.length) return [];
  const keys = new Set(termIdx.flatMap((i) => [...ctx.q.terms[i].keys]));
  const out: Span[] = [];
  for (const m of text.matchAll(/[A-Za-z\u00c0-\u024f][\w'’-]*/g)) if (keys.has(wordKey(m[0]))) out.push({ start: m.index!, end: m.index! + m[0].length });
  return out;
}

/** Closeness of a candidate to the nearest matched word (gap in characters; a candidate after the word is a little closer). */
function proximity(start: number, end: number, spans: Span[]): number {
  if (!spans.length) return 0;
  let best = Infinity;
  for (const p of spans) {
    const d = start >= p.end ? start - p.end : p.start >= end ? (p.start - end) * 1.3 : 0;
    if (d < best) best = d;
  }
  return 0.5 / (1 + best / 20);
}

const CLAUSE_END = /[,.;:!?()]|\s(?:and|but|which|who|whom|whose|where|when|while|that|because|although|since|after|before|until|as|with|from)\s/i;

const LIST_END = /[.;:!?()]|\s(?:but|which|who|whom|whose|where|when|while|that|because|although|since|after|before|until|with|from)\s/i;

/** The phrase after the last matched relation word ("specialises in acoustics" -> acoustics). */
function phraseAfter(ctx: ReadContext, text: string, positions: number[]): { value: string; index: number; last: boolean }[] {
  const out: { value: string; index: number; last: boolean }[] = [];
  const lastPos = Math.max(...positions);
  for (const p of positions) {
    let rest = text.slice(p);
    const lead =
      /^\s*(?:(?:is|was|are|were|be|been|has|have|had)\s+)?(?:(?:in|at|on|of|as|by|from|to|into|for|with)\s+)?(?:(?:the|a|an|its|his|her|their)\s+)?/i.exec(
        rest,
      );
    const skip = lead ? lead[0].length : 0;
    rest = rest.slice(skip);
    const end = (ctx.q.type === 'list' || ctx.q.claim ? LIST_END : CLAUSE_END).exec(rest);
    let phrase = (end ? rest.slice(0, end.index) : rest).trim();
    const words = phrase.split(/\s+/).filter(Boolean);
    if (!words.length || words.length > (ctx.q.type === 'list' ? 12 : 6)) continue;
    phrase = words.join(' ');
    // Drop the answer-type noun ("the shipbuilding sector" -> shipbuilding).
    if (ctx.q.typeNoun) {
      const tn = ctx.q.typeNoun.split(' ').pop()!;
      phrase = phrase.replace(new RegExp(`\\s+${tn}s?$`, 'i'), '').replace(new RegExp(`^${tn}s?\\s+(?:of\\s+)?`, 'i'), '');
    }
    if (phrase && !inQuestion(ctx, phrase)) out.push({ value: phrase, index: p + skip, last: p === lastPos });
  }
  return out;
}

const FUNCTION_NAME =
  /^(?:its|his|her|their|he|she|it|they|we|our|this|these|those|there|here|then|when|while|after|before|although|however|also|both|each|such|some|many|most|other|during|since|until|from|into|upon|with|without|because|once|later|today|currently|originally|initially|finally)$/i;
export const DEMONYM = /^[A-Z][a-z]+(?:an|ian|ish|ese|ic|i)$/;

/** Names in a text, with "City, State" joined for places. */
function namesIn(text: string, type: ValueType): { value: string; index: number }[] {
  const out: { value: string; index: number }[] = [];
  for (const e of entities(text)) {
    if (FUNCTION_NAME.test(e)) continue;
    let idx = text.indexOf(e);
    if (idx < 0) idx = text.toLowerCase().indexOf(e.toLowerCase());
    let value = e;
    if (type === 'place' && idx >= 0 && /\b(?:in|at|from|near|to|into|of)\s+(?:the\s+)?$/.test(text.slice(Math.max(0, idx - 12), idx))) {
      const after = /^,\s*([A-Z][\w'’.-]*(?:\s[A-Z][\w'’.-]*){0,2})/.exec(text.slice(idx + e.length));
      if (after) value = `${e}, ${after[1]}`;
    }
    out.push({ value, index: Math.max(0, idx) });
  }
  return out;
}

const PRONOUN_START =
  /^(?:he|she|it|they|his|her|its|their|this|these|the (?:[a-z]+ ){0,2}?(?:band|group|film|movie|company|album|song|series|show|book|novel|team|club|city|town|school|university|magazine|airport|game|station|building|organisation|organization|party|firm|institute|artist|singer|player|actor|actress|character|work|play|opera|work))\b/i;

/**
 * "Which Danish band released X?" / "Barrier Device starred which actress,
 * known for Y?": the answer is what a sentence describing it is ABOUT: its
 * leading name ("Mercyful Fate is a Danish heavy metal band ..."), or the
 * block's subject when the sentence opens with a pronoun ("She is known for ...").
 */
export function sentenceSubject(f: Fact): { name: string; end: number } | undefined {
  if (f.kind !== 'sentence' && f.kind !== 'note') return undefined;
  const text = f.text.replace(/^["“'‘]+/, '');
  // The name that opens the sentence (entities() lists quoted titles first, so pick by position).
  const lead = entities(text)
    .map((e) => ({ e, at: text.indexOf(e) }))
    .filter((x) => x.at >= 0)
    .sort((a, b) => a.at - b.at)[0]?.e;
  if (lead && !FUNCTION_NAME.test(lead)) {
    const at = text.indexOf(lead);
    const pre = text.slice(0, Math.max(0, at)).trim();
    if (at >= 0 && (pre === '' || /^(?:the|a|an)$/i.test(pre))) {
      // The name must be followed by the predicate (after an optional parenthetical or appositive).
      const rest = text
        .slice(at + lead.length)
        .replace(/^\s*\([^)]*\)/, '')
        .replace(/^\s*,[^,]{0,80},/, '');
      if (/^\s*(?:["”'’]\s*)?(?:is|was|are|were|has|had|have|became|remains|serves|served|[a-z]+ed|[a-z]+s)\b/.test(rest))
        return { name: lead, end: at + lead.length };
    }
  }
  if (PRONOUN_START.test(text) && f.subject) return { name: f.subject.replace(/\s*\([^)]*\)\s*$/, ''), end: 0 };
  return undefined;
}

function subjectCandidate(
  ctx: ReadContext,
  f: Fact,
  spans: Span[],
  type: ValueType,
  push: (value: string, index: number, bonus?: number, length?: number) => void,
): void {
  const subj = sentenceSubject(f);
  if (!subj) return;
  // The matched words must describe it (lie after the name).
  const describing = spans.filter((s) => s.start >= subj.end).length;
  if (!describing) return;
  // "Which band ...?": a subject the sentence calls a band fits; one it calls an album does not.
  const typeTerms = ctx.q.terms.filter((t) => t.typeWord);
  const after = new Set(tokens(f.text.slice(subj.end)).map(wordKey));
  const kindFits = !typeTerms.length ? 0 : typeTerms.some((t) => [...t.keys].some((k) => after.has(k))) ? 0.2 : -0.4;
  push(subj.name, 0, -0.1 + 0.15 * Math.min(3, describing) + kindFits + typeBonus(subj.name, type), 0);
}

/** Candidate values of a sentence-like fact for the asked type, best first. */
function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th');
  return `${n}${s}`;
}

const SUPERLATIVE_WORD = /\b(?:\w+est|most|least|peak(?:ed)?|record|maximum|minimum|top)\b/i;

function sentenceCandidates(ctx: ReadContext, f: Fact, type: ValueType, termIdx: number[], exclude: string[]): RawCand[] {
  const text = f.text;
  // "In which year was X highest?" is answered by a series or a sentence that says a superlative, not by any year near X.
  if (ctx.q.superlative && !SUPERLATIVE_WORD.test(text)) return [];
  // "What was X in 2017?": a number from a sentence that names no asked year is some other year's.
  if (type === 'number' && ctx.q.years.length && !ctx.q.years.some((y) => text.includes(y))) return [];
  // A run of bare numbers is chart or table data this text cannot pair up: no values from it.
  if ((type === 'number' || type === 'year') && /(?:[$€£]?\d[\d,.]*%?\s+){4,}/.test(text)) return [];
  const spans = termSpans(ctx, text, termIdx);
  const pos = spans.map((p) => p.end);
  const excluded = (v: string) => inQuestion(ctx, v) || exclude.some((e) => sameName(e, v) || mentions(v, e) || mentions(e, v));
  const out: RawCand[] = [];
  const push = (value: string, index: number, bonus = 0, length = value.length) => {
    const v = value.trim().replace(/[,;:.]+$/, '');
    if (!v || excluded(v)) return;
    // "Founder:" is a label, not a value.
    if (/^\s*:/.test(text.slice(index + length)) && !/^\d/.test(v)) return;
    if (f.kind === 'ocr') bonus -= 0.3;
    out.push({ value: v, bonus: bonus + proximity(index, index + length, spans) });
  };
  switch (type) {
    case 'year':
      if (ctx.q.typeNoun && /century$/.test(ctx.q.typeNoun)) {
        // "During which century?": an ordinal century as written, else the century of a year.
        for (const m of text.matchAll(
          /\b(\d{1,2}(?:st|nd|rd|th)|(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-first))[- ]century\b/gi,
        ))
          push(`${m[1]} century`, m.index!, 0.3, m[0].length);
        for (const m of text.matchAll(YEAR_RE))
          if (!ctx.q.years.includes(m[1])) push(`${ordinal(Math.floor((Number(m[1]) - 1) / 100) + 1)} century`, m.index!, -0.2, m[1].length);
        break;
      }
      for (const m of text.matchAll(YEAR_RE)) if (!ctx.q.years.includes(m[1])) push(m[1], m.index!);
      break;
    case 'date': {
      for (const m of text.matchAll(DATE_RE)) push(m[0], m.index!, 0.3);
      for (const m of text.matchAll(YEAR_RE)) if (!ctx.q.years.includes(m[1])) push(m[1], m.index!);
      break;
    }
    case 'number': {
      const wantsYears = ctx.q.units.includes('years');
      for (const n of numbers(text)) {
        if (!wantsYears && /^(?:1[0-9]{3}|20[0-9]{2})$/.test(n.text)) continue;
        if (ctx.q.years.includes(n.text)) continue;
        const before = text.slice(Math.max(0, n.index - 3), n.index);
        const after = text.slice(n.index + n.text.length, n.index + n.text.length + 3);
        let bonus = 0;
        if (/=\s*$/.test(before)) bonus += ctx.q.calculation ? 0.8 : -0.2; // the result of a worked calculation
        if (/\b(?:figure|fig\.?|table|chart|page|p\.|no\.|section|chapter)\s*$/i.test(text.slice(Math.max(0, n.index - 9), n.index))) continue;
        if (/^\s*[x×*+/÷-]/.test(after) || /[x×*+/÷-]\s*$/.test(before)) bonus -= 0.4; // an operand
        // "5,400 employees" for "how many employees": the number the asked unit follows.
        const next = /^\s*([A-Za-z%]+)/.exec(text.slice(n.index + n.text.length));
        if (next && ctx.q.units.includes(next[1].toLowerCase())) bonus += 0.4;
        if (ctx.q.units.some((u) => n.text.toLowerCase().endsWith(u))) bonus += 0.4;
        // "What percentage ...?": a share, not a count.
        if (/\bper ?cent(?:age)?\b|%/i.test(ctx.q.text)) bonus += /%|per ?cent/i.test(n.text) ? 0.4 : -0.3;
        push(stripUnits(n.text, ctx.q.units), n.index, bonus, n.text.length);
      }
      break;
    }
    case 'person':
    case 'place':
    case 'entity': {
      for (const n of namesIn(text, type)) {
        const before = text.slice(Math.max(0, n.index - 12), n.index).toLowerCase();
        let bonus = typeBonus(n.value, type);
        // "DeCavalcante crime family" for "what crime family": the name the asked noun follows.
        if (ctx.q.typeNoun) {
          const tn = ctx.q.typeNoun.replace(/^(?:type|kind|sort|category) of /, '');
          const follows = new RegExp(`^\\s+${tn.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}s?\\b`, 'i').exec(text.slice(n.index + n.value.length));
          if (follows) {
            bonus += 0.4;
            push(`${n.value}${follows[0]}`, n.index, bonus + 0.05, n.value.length + follows[0].length);
            continue;
          }
        }
        if (type === 'place' && /\b(?:in|at|from|near|to|into)\s+(?:the\s+)?(?:(?:city|town|village|state|country|province|region) of\s+)?$/.test(before))
          bonus += 0.2;
        // A quoted name is a title (a film, a song), not a person or a place.
        if ((type === 'person' || type === 'place') && /["“]\s*$/.test(text.slice(Math.max(0, n.index - 2), n.index))) bonus -= 0.4;
        if (type === 'person' && /\b(?:by|is|was)\s+$/.test(before)) bonus += 0.2;
        push(n.value, n.index, bonus);
      }
      // Lower-case phrases are not names; only for "which <noun>" questions ("which sector") may the answer be one.
      for (const p of phraseAfter(ctx, text, pos))
        if (/^[A-Z"“]/.test(p.value) || (type === 'entity' && ctx.q.typeNoun))
          push(p.value, p.index, -0.3 + typeBonus(p.value, type) + (ctx.q.whFinal && p.last ? 0.25 : 0));
      subjectCandidate(ctx, f, spans, type, push);
      break;
    }
    default: {
      for (const p of phraseAfter(ctx, text, pos)) push(p.value, p.index, 0.1 + (ctx.q.whFinal && p.last ? 0.25 : 0));
      for (const n of namesIn(text, type)) push(n.value, n.index, -0.1);
      if (ctx.q.typeNoun) subjectCandidate(ctx, f, spans, type, push);
    }
  }
  out.sort((a, b) => b.bonus - a.bonus);
  return out;
}

/** Candidate values of one fact. kv: its value; sentence/ocr/note: spans. */
export function factCandidates(ctx: ReadContext, f: Fact, type: ValueType, termIdx: number[], exclude: string[]): RawCand[] {
  if (f.kind === 'kv') {
    const v = fitValue(ctx, f.value ?? '', type);
    if (!v || inQuestion(ctx, v) || exclude.some((e) => sameName(e, v))) return [];
    return [{ value: v, bonus: 0.7 + typeBonus(v, type) }];
  }
  if (f.kind === 'row') return [];
  return sentenceCandidates(ctx, f, type, termIdx, exclude);
}

/** Values a fact offers as bridges to the next hop: names (kv values, table cells, names in sentences). */
export function bridgeValues(ctx: ReadContext, f: Fact, termIdx: number[], exclude: string[]): RawCand[] {
  if (f.kind === 'kv') {
    const v = (f.value ?? '').trim();
    if (!v || /^[$€£]?-?\d[\d,.]*\s*\S{0,3}$/.test(v) || v.split(/\s+/).length > 6 || exclude.some((e) => sameName(e, v))) return [];
    return [{ value: v, bonus: 0.3 }];
  }
  if (f.kind === 'row') return [];
  // Names only; a lone capitalised word that opens a sentence or follows a colon is usually a common word ("Annual revenue ...").
  const opener = (v: string) =>
    !v.includes(' ') &&
    new RegExp(`(?:^|[:.!?]\\s*|\\d:\\s*)${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(f.text) &&
    !new RegExp(`[a-z,;]\\s+${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(f.text);
  return sentenceCandidates(ctx, f, 'entity', termIdx, exclude)
    .filter(
      (c) =>
        /^[A-Z0-9"“]/.test(c.value) && !opener(c.value) && !DEMONYM.test(c.value) && !/^(?:Figure|Fig|Table|Chart|Image|Page|Section|Chapter)\b/.test(c.value),
    )
    .slice(0, 4);
}
