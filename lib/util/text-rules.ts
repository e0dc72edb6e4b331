/**
 * Small, dependency-free text tools shared by the offline policies: tokens,
 * light stemming, sentence splitting, capitalised-phrase "entities", numbers,
 * years and the answer type a question asks for. Deliberately simple and
 * deterministic: the offline backend stands in for models, it does not try to
 * be one.
 */

export const STOPWORDS = new Set(
  (
    'a an the and or but if then than so of in on at to for from by with without about into onto over under between among through ' +
    'during before after above below up down out off is are was were be been being am do does did doing have has had having ' +
    "it its it's this that these those there here which who whom whose what when where why how whether " +
    'i me my we our you your he him his she her they them their as not no nor can could would should will shall may might must ' +
    'also very more most less least such only own same too just any each every both few other some all many much ' +
    'one ones s t name named called according please tell give show find list state provide'
  ).split(/\s+/),
);

const QUESTION_WORDS = new Set(['what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how', 'is', 'are', 'was', 'were', 'do', 'does', 'did']);

/** Lower-cased word tokens (letters/digits, inner apostrophes, dots and commas inside numbers kept). */
export function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9\u00c0-\u024f]+(?:[.,'][a-z0-9\u00c0-\u024f]+)*/g) ?? []).map((t) => t.replace(/'s$/, ''));
}

/** A crude stem so that "directed"/"director"/"directs" and "films"/"film" meet. */
export function stem(w: string): string {
  if (/^\d/.test(w)) return w;
  let s = w;
  for (const suf of ['ations', 'ation', 'ings', 'ing', 'ers', 'er', 'ors', 'or', 'ies', 'ied', 'es', 'ed', 'ly', 's']) {
    if (s.length - suf.length >= 3 && s.endsWith(suf)) {
      s = s.slice(0, -suf.length) + (suf === 'ies' || suf === 'ied' ? 'y' : '');
      break;
    }
  }
  return s;
}

/** Content words: tokens that are not stop words or question words. */
export function contentWords(text: string): string[] {
  return tokens(text).filter((t) => !STOPWORDS.has(t) && !QUESTION_WORDS.has(t));
}

export function stemSet(text: string): Set<string> {
  return new Set(contentWords(text).map(stem));
}

/** Split prose into sentences (keeps decimals, initials and common abbreviations together). */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const para of text.split(/\n\s*\n|\n(?=[-*#|]|\d+\.\s)/)) {
    const flat = para.replace(/\s+/g, ' ').trim();
    if (!flat) continue;
    const parts = flat.split(/(?<=[.!?])["')\]]?\s+(?=["'([]?[A-Z0-9])/);
    let buf = '';
    for (const p of parts) {
      buf = buf ? `${buf} ${p}` : p;
      // Do not end a sentence on an initial ("J. Smith") or a short abbreviation ("Dr.", "No.", "U.S.").
      if (/(?:\b[A-Z]|\b(?:Dr|Mr|Mrs|Ms|St|No|Inc|Ltd|Co|Jr|Sr|vs|etc|e\.g|i\.e|U\.S|approx|Fig|fig|Vol|pp))\.$/.test(buf)) continue;
      out.push(buf);
      buf = '';
    }
    if (buf) out.push(buf);
  }
  return out;
}

// Lower-case words allowed INSIDE a name ("University of Oxford", "Ludwig van Beethoven"); not and/in/for, which join two names.
const CONNECTORS = new Set(['of', 'the', 'de', 'la', 'von', 'van', 'der', '&', 'du', 'le', 'del', 'da', 'di']);
const NOT_ENTITY = new Set([
  'the',
  'a',
  'an',
  'what',
  'which',
  'who',
  'whom',
  'whose',
  'when',
  'where',
  'why',
  'how',
  'is',
  'are',
  'was',
  'were',
  'do',
  'does',
  'did',
  'in',
  'on',
  'at',
  'of',
  'for',
  'and',
  'or',
  'but',
  'if',
  'it',
  'this',
  'that',
  'these',
  'those',
  'there',
  'according',
  'based',
  'as',
  'by',
  'can',
  'could',
  'would',
  'should',
  'has',
  'have',
  'had',
  'yes',
  'no',
  'not',
  'answer',
  'final',
  'question',
  'i',
  'we',
  'you',
  'he',
  'she',
  'they',
  'table',
  'figure',
  'fig',
  'page',
  'section',
  'chapter',
  'image',
  'photo',
  'picture',
  'both',
  'after',
  'before',
  'between',
  'from',
  'with',
  'to',
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
]);

/**
 * Capitalised phrases ("Christopher Nolan", "University of Oxford", "Inception")
 * and quoted phrases, in order of appearance, de-duplicated. Sentence-initial
 * function words ("The", "What") are not entities on their own.
 */
export function entities(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const push = (e: string) => {
    const v = e
      .replace(/^(?:the|a|an)\s+/i, '')
      .replace(/[\s,;:]+$/, '')
      .trim();
    const k = v.toLowerCase();
    if (v.length < 2 || seen.has(k) || NOT_ENTITY.has(k)) return;
    seen.add(k);
    out.push(v);
  };
  for (const m of text.matchAll(/["“]([^"”]{2,80})["”]/g)) push(m[1]);
  const words = text.split(/(\s+)/);
  let cur: string[] = [];
  const flush = () => {
    while (cur.length && CONNECTORS.has(cur[cur.length - 1].toLowerCase())) cur.pop();
    if (cur.length) push(cur.join(' '));
    cur = [];
  };
  for (const raw of words) {
    if (/^\s+$/.test(raw) || raw === '') continue;
    const w = raw.replace(/^[("'“‘[]+|[)"'”’\],.;:!?]+$/g, '');
    const endsClause = /[,.;:!?)"”]$/.test(raw);
    // Capitalised words and acronyms (with at least one letter: a bare number is a value, not a name).
    // A short number continues a name ("Apollo 11", "Orvo 7"); a year does not ("Paris 1990").
    const isCap =
      /^[A-Z\u00c0-\u00de][\w\u00c0-\u024f'’.-]*$/.test(w) ||
      /^(?=[A-Z0-9]*[A-Z])[A-Z0-9]{2,}$/.test(w) ||
      (cur.length > 0 && /^\d{1,3}$/.test(w) && raw === w);
    if (isCap && !(cur.length === 0 && NOT_ENTITY.has(w.toLowerCase()))) {
      cur.push(w);
    } else if (cur.length && CONNECTORS.has(w.toLowerCase()) && !endsClause) {
      cur.push(w);
    } else {
      flush();
    }
    if (endsClause) flush();
  }
  flush();
  return out;
}

export interface NumberMention {
  /** As written, with currency/percent/unit (the span an answer copies). */
  text: string;
  value: number;
  index: number;
}

// A unit is a whole word: "120 members" has none (not "120 m").
const UNIT =
  '(?:\\s?(?:%|(?:percent|per cent|million|billion|thousand|trillion|km|kg|m|cm|mm|mi|miles|lb|lbs|°C|°F|years?|days?|hours?|minutes?|people|GB|MB|TB|USD|EUR)(?![A-Za-z])))?';
const NUMBER_RE = new RegExp(`(?:[$€£¥]\\s?)?-?(?:\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.\\d+)?${UNIT}`, 'g');

/** Numbers as written ("$3.5 million", "42%", "1,200"), with their value. */
export function numbers(text: string): NumberMention[] {
  const out: NumberMention[] = [];
  for (const m of text.matchAll(NUMBER_RE)) {
    const before = text[m.index! - 1];
    if (before && /[A-Za-z_]/.test(before)) continue; // part of an identifier like "Q3" or "A320"
    const raw = m[0].trim();
    const value = Number(raw.replace(/[^\d.-]/g, ''));
    if (!Number.isFinite(value)) continue;
    out.push({ text: raw, value, index: m.index! });
  }
  return out;
}

export function years(text: string): string[] {
  return [...text.matchAll(/\b(1[0-9]{3}|20[0-9]{2})\b/g)].map((m) => m[1]);
}

export type QuestionKind = 'yes-no' | 'number' | 'year' | 'date' | 'name' | 'list' | 'span';

/** The answer type a question asks for (drives span extraction and the checker). */
export function questionKind(question: string): QuestionKind {
  const q = question.trim().toLowerCase();
  if (/^(is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)\b/.test(q) && !/\b(or)\b[^?]*\?\s*$/.test(q)) return 'yes-no';
  if (/\b(what|which) year\b|\bin what year\b|\byear (?:did|was|were|of)\b/.test(q)) return 'year';
  if (/^when\b|\bwhat date\b|\bon what day\b/.test(q)) return 'date';
  if (
    /\bhow (many|much|long|far|old|tall|big|large|high)\b|\bwhat (?:is|was) the (?:number|total|amount|percentage|share|rate|ratio|value|count)\b|\bwhat percent(?:age)?\b|\bnumber of\b/.test(
      q,
    )
  )
    return 'number';
  if (/^(who|whom|whose)\b|\bwhich (person|player|actor|actress|director|author|artist|company|team|country|city|band|singer|writer)\b/.test(q)) return 'name';
  if (/\b(list|name all|what are the|which are the|both)\b/.test(q)) return 'list';
  return 'span';
}

/** Token-overlap score of a unit against the question's stemmed content words, entity words counting double. */
export function overlapScore(question: Set<string>, entityStems: Set<string>, unit: string): number {
  const u = stemSet(unit);
  let s = 0;
  for (const w of question) if (u.has(w)) s += entityStems.has(w) ? 2 : 1;
  return s;
}

/** Case-insensitive whole-phrase containment. */
export function containsPhrase(haystack: string, phrase: string): boolean {
  const esc = phrase.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^a-z0-9])${esc}([^a-z0-9]|$)`, 'i').test(haystack.toLowerCase());
}

/**
 * Words of a question that carry the relation ("directed", "born", "capital"): content words outside its
 * entities (the offline policies). Not DualG's relationWords (lib/dualg/query/relation-words.ts), which works on
 * linked word positions and adds a kinship/role lexicon.
 */
export function relationContentWords(question: string, ents: string[] = entities(question)): string[] {
  const entityTokens = new Set(ents.flatMap((e) => tokens(e)));
  return contentWords(question).filter((w) => !entityTokens.has(w) && !/^\d+$/.test(w) && !ANSWER_TYPE_WORDS.has(w));
}

/** Words that name the answer's type ("what YEAR", "how MANY"), not a relation to look for. */
export const ANSWER_TYPE_WORDS = new Set([
  'year',
  'years',
  'date',
  'day',
  'number',
  'amount',
  'total',
  'percentage',
  'percent',
  'count',
  'time',
  'many',
  'much',
  'kind',
  'type',
  'value',
]);
