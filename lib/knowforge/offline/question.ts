/**
 * Question analysis for the offline reader: what kind of answer is asked for
 * (year, number, person, place, named thing, short span, yes/no, list, one of
 * two options), which named things the question starts from (its topics),
 * which words say what is asked about them (relation terms, with paraphrase
 * keys), and the constraints around them: years ("in 2005"), units ("in
 * grams"), comparisons ("which is heavier, A or B"), superlatives ("in which
 * year ... highest"), thresholds ("exceed 120"), yes/no claims ("born before
 * 1960", "headquartered in X").
 *
 * Pure string heuristics over English question shapes; no corpus knowledge.
 */
import { COMPARATIVES, expandKey, MEASURE_NOUNS, PERSON_NOUNS, PLACE_NOUNS, TIME_NOUNS, unitForms, wordKey } from './lexicon';
import { containsPhrase, entities, STOPWORDS, tokens } from '../../util/text-rules';

export type AnswerType = 'yes-no' | 'year' | 'date' | 'number' | 'person' | 'place' | 'entity' | 'span' | 'list' | 'choice';

export interface RelTerm {
  word: string;
  key: string;
  /** Keys that count as a match (the word's paraphrase group). */
  keys: Set<string>;
  /** Position of the word in the question (token index). */
  pos: number;
  /** The noun that names the answer's type ("city" in "which city"): matching it helps, missing it is normal. */
  typeWord: boolean;
  /**
   * Names the asked relation ("mayor" in "Who is the mayor of X?", "born" in
   * "In which city was the CEO of X born?"): the fact an answer comes from
   * must say one of these (when the question has any).
   */
  head: boolean;
}

export interface Threshold {
  op: '>' | '<';
  value: number;
}

export interface YesNoClaim {
  /** The value the question asserts ("1960", "Sourlaev", "cobalt"). */
  value: string;
  /** How to compare the looked-up value with it. */
  op: 'eq' | 'before' | 'after' | '>' | '<';
}

export interface QuestionInfo {
  text: string;
  type: AnswerType;
  /** The type the answer value has for lists / choices / yes-no lookups (year, number, person...). */
  valueType: Exclude<AnswerType, 'yes-no' | 'list' | 'choice'>;
  typeNoun?: string;
  topics: string[];
  terms: RelTerm[];
  /** Years named in the question (row/sentence constraints). */
  years: string[];
  /** Unit words the question names ("grams", "people"): stripped from numeric answers. */
  units: string[];
  /** "Which ..., A or B?": the options and the direction of the comparison. */
  choice?: { options: string[]; dir: 'max' | 'min'; temporal: boolean };
  superlative?: { dir: 'max' | 'min' };
  threshold?: Threshold;
  claim?: YesNoClaim;
  /** "Are A and B both ...?", "the same ...": compare two subjects. */
  pair?: { a: string; b: string; same: boolean };
  /** "Was A founded before B?", "Is A taller than B?": compare a value of A with that of B. */
  versus?: { a: string; b: string; dir: 'max' | 'min'; temporal: boolean };
  negated: boolean;
  /** The wh-word ends the question ("... depictions of what?"): the answer follows the matched words. */
  whFinal: boolean;
  /** "What is an American company that ...?": the answer is whatever fits the description, wherever it is. */
  description: boolean;
  /** The question asks for a computed value (average, total, age, conversion): a worked calculation's result fits. */
  calculation: boolean;
}

const WH = /^(?:(?:in|on|at|from|for|by|to|of|with|during|under|into)\s+)?(what|which|who|whom|whose|when|where|why|how)\b/i;
const AUX = new Set([
  'is',
  'are',
  'was',
  'were',
  'do',
  'does',
  'did',
  'can',
  'could',
  'has',
  'have',
  'had',
  'will',
  'would',
  'should',
  'shall',
  'may',
  'might',
]);
const WH_WORDS = new Set(['what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how']);
const PLACE_ATTRIBUTE_KEYS = ['location', 'located', 'headquarters', 'seat', 'address', 'situated', 'based', 'hometown'].map(wordKey);
const DEMONYM_WORD = /^[A-Z][a-z]+(?:an|ian|ish|ese|ic|i)$/;
const THRESHOLD_WORDS = new Set(['exceed', 'exceeded', 'exceeds', 'than', 'least', 'over', 'above', 'below', 'under']);
const NOT_TERMS = new Set([
  'chart',
  'charts',
  'figure',
  'figures',
  'graph',
  'diagram',
  'image',
  'picture',
  'photo',
  'document',
  'documents',
  'page',
  'pages',
  'report',
  'article',
  'articles',
  'passage',
  'text',
  'materials',
  'according',
  'shown',
  'show',
  'shows',
  'listed',
  'mentioned',
  'stated',
  'given',
  'year',
  'years',
  'many',
  'much',
  'number',
  'amount',
  'total',
  'value',
  'name',
  'named',
  'called',
  'time',
  'date',
  'day',
  'kind',
  'type',
  'there',
  'exactly',
  'approximately',
  'roughly',
  'about',
  'also',
  'currently',
  'current',
  'still',
  'ever',
  'both',
  'either',
  'neither',
  'same',
  'different',
]);

function stripArticle(s: string): string {
  return s
    .replace(/^(?:the|a|an)\s+/i, '')
    .replace(/[?.!,;:]+$/, '')
    .trim();
}

/** The options of "Which ..., A or B?" / "Who is older, A or B?" / "Is A or B ...?". */
function choiceOptions(q: string, ents: string[]): string[] | undefined {
  const m = /^(.*?)[,:]?\s+((?:the\s+|a\s+|an\s+)?[^,?]+?)\s+or\s+((?:the\s+|a\s+|an\s+)?[^,?]+?)\s*\??$/i.exec(q.trim());
  if (!m) return undefined;
  const left = m[2].trim();
  const right = stripArticle(m[3]);
  // The left option is what precedes " or " back to a comma, or the last named thing before it.
  let a = stripArticle(left);
  if (!/,/.test(m[1] + ',') || a.split(/\s+/).length > 6 || !/,\s*$/.test(q.slice(0, q.indexOf(left)))) {
    const before = q.slice(0, q.toLowerCase().lastIndexOf(' or '));
    const named = ents.filter((e) => before.endsWith(e) || before.replace(/["'”’]+$/, '').endsWith(e));
    if (named.length) a = named[named.length - 1];
    else if (a.split(/\s+/).length > 6) return undefined;
  }
  if (!a || !right || a.toLowerCase() === right.toLowerCase()) return undefined;
  return [a.replace(/^["“]|["”]$/g, ''), right.replace(/^["“]|["”]$/g, '')];
}

/** The noun after "which/what" ("which city", "what type of product", "which census years"), when there is one. */
function typeNounOf(q: string): string | undefined {
  // The clause of the wh-word: a comma ends the noun phrase ("which actress, known for ...").
  const clause = q.split(/[,;:]/).find((c) => /\b(?:what|which)\b/i.test(c)) ?? q;
  const words = clause.replace(/[?!]/g, ' ').split(/\s+/).filter(Boolean);
  const i = words.findIndex((w) => /^(what|which)$/i.test(w));
  if (i < 0) return undefined;
  const STOP =
    /^(is|are|was|were|do|does|did|has|have|had|can|could|will|would|in|on|at|of|from|for|to|by|that|who|whom|which|when|where|the|a|an|his|her|its|their|and|or|than|as|with)$/i;
  const DET = /^(the|a|an|his|her|its|their|this|that|these|those|[A-Z].*|\d.*)$/;
  const out: string[] = [];
  for (let j = i + 1; j < words.length && out.length < 5; j++) {
    const w = words[j];
    // "which television and movie actor": "and" joins two modifiers of one noun.
    if (/^and$/i.test(w) && out.length && j + 1 < words.length && /^[a-z]/.test(words[j + 1]) && !STOP.test(words[j + 1])) {
      out.push('and');
      continue;
    }
    // "Which Welsh folk band": a capitalised adjective before lower-case nouns belongs to the noun phrase.
    if (/^[A-Z][a-z]+$/.test(w) && j + 1 < words.length && /^[a-z]/.test(words[j + 1]) && !STOP.test(words[j + 1]) && !/(?:[^s]s|ed)$/.test(words[j + 1])) {
      out.push(w.toLowerCase());
      continue;
    }
    if (STOP.test(w) || /^[A-Z0-9]/.test(w)) break;
    // A verb after the noun: "which company manufactures the X", "which band released a ...".
    if (out.length && /(s|ed)$/i.test(w) && j + 1 < words.length && DET.test(words[j + 1])) break;
    // A past form after the noun is the verb ("what song debuted in ...").
    if (out.length && /[^e]ed$/i.test(w)) break;
    out.push(w.toLowerCase());
  }
  if (!out.length) return undefined;
  if (/^(type|kind|sort|category)$/.test(out[0]) && words[i + 2]?.toLowerCase() === 'of') {
    const rest = words.slice(i + 3, i + 5).filter((w) => !STOP.test(w) && !/^[A-Z0-9]/.test(w));
    return rest.length ? `${out[0]} of ${rest[0].toLowerCase()}` : out[0];
  }
  return out.join(' ');
}

/** The head phrase of "Wh- is/was the HEAD of ...": what the answer is (e.g. "mayor", "stock ticker symbol"). */
function headPhraseOf(q: string): string[] {
  const m =
    /^(?:what|who|which)\s+(?:is|was|are|were)\s+(?:the\s+|a\s+|an\s+)?((?:[A-Za-z-]+\s+){0,3}?[A-Za-z-]+)\s+(?:of|for|in|at|to|by|from|that|which|who)\b/i.exec(
      q.trim(),
    );
  if (m) return tokens(m[1]).filter((w) => !STOPWORDS.has(w));
  const n = /^(?:name|identify|give|list)\s+(?:the\s+)?((?:[A-Za-z-]+\s+){0,2}?[A-Za-z-]+)\s+(?:of|for)\b/i.exec(q.trim());
  if (n) return tokens(n[1]).filter((w) => !STOPWORDS.has(w));
  const h =
    /^how\s+(?:long|tall|high|far|old|big|heavy|wide|deep)\s+(?:is|was|are|were)\s+(?:the\s+)?((?:[A-Za-z-]+\s+){0,2}?[A-Za-z-]+)\s+(?:of|for|in)\b/i.exec(
      q.trim(),
    );
  if (h) return tokens(h[1]).filter((w) => !STOPWORDS.has(w));
  return [];
}

const REL_PRONOUN = /\b(who|whom|whose|which|that|where|when)\b/gi;
const VERBISH =
  /^(?:born|made|built|died|held|led|won|sold|wrote|written|grew|began|lies?|lay|lived?|studied|study|works?|worked|plays?|played|hosts?|hosted|employs?|operates?|located|based|founded|established|created|formed|released|published|directed|produced|composed|owned|married|started|opened|settled|[a-z]+ed|[a-z]+en)$/i;

/**
 * The words that name what the question asks, as opposed to the relations
 * that lead to its subject: the HEAD of "Wh- is the HEAD of ...", else the
 * main clause's last predicate ("... of X born?", "Where did the CEO of X
 * study?"), or, when the question's verb belongs to a relative clause about
 * its subject ("In which city is the institution where X studied?"), the
 * answer-type noun ("city").
 */
function askedWordsOf(text: string, topics: string[], typeNoun: string | undefined, headWords: string[], tail: RegExp | undefined): string[] {
  if (headWords.length) return headWords;
  let t = text.replace(/\?+\s*$/, '');
  if (tail) t = t.replace(tail, '');
  t = t.replace(/,?\s+in\s+(?:(?:million|billion|thousand)\s+)?[a-z%]+(?:\s+[a-z]+)?\s*$/i, (m) => (/,/.test(m) ? '' : m));
  const content = (s: string) => tokens(s).filter((w) => !STOPWORDS.has(w) && !AUX.has(w) && !WH_WORDS.has(w) && !/^\d/.test(w));
  const whEnd = (() => {
    const m =
      /^(?:(?:in|on|at|from|for|by|to|of|with|during)\s+)?(?:what|which|who|whom|whose|when|where|how)\b(?:\s+(?:many|much|long|far|old|tall|big|large|high))?/i.exec(
        t,
      );
    if (!m) return 0;
    let e = m[0].length;
    if (typeNoun && t.slice(e).trimStart().toLowerCase().startsWith(typeNoun)) e = t.toLowerCase().indexOf(typeNoun, e) + typeNoun.length;
    return e;
  })();
  const topicSpans = topics
    .map((e) => ({ s: t.indexOf(e), e: t.indexOf(e) + e.length }))
    .filter((x) => x.s >= 0)
    .sort((a, b) => a.s - b.s);
  const rels = [...t.matchAll(REL_PRONOUN)].filter((m) => m.index! >= whEnd);
  const rel = rels[0];
  const lastTopicEnd = topicSpans.length ? topicSpans[topicSpans.length - 1].e : whEnd;
  // Without a relative clause, trailing words name the asked relation only after a nested subject ("the CEO of X born?").
  if (!rel) return /\bthe\s+(?:[a-z-]+\s+){0,3}?(?:of|for)\s/i.test(t.slice(whEnd)) ? content(t.slice(lastTopicEnd)) : [];
  const afterRel = t.slice(rel.index! + rel[0].length).trimStart();
  const subjectFirst = /^(?:where|when|whose)$/i.test(rel[1]) || /^(?:the|a|an|his|her|its|their|[A-Z0-9"“])/.test(afterRel);
  if (!subjectFirst) {
    // "the company that makes X ... born": the clause ends at its object; what follows is the main clause.
    const obj = topicSpans.find((x) => x.s > rel.index!);
    const rest = content(t.slice(obj ? obj.e : t.length));
    if (rest.length) return rest;
    return [];
  }
  // A subject-first clause runs to its verb; a second trailing verb is the main clause's ("... studied founded?").
  const trailing = content(t.slice(lastTopicEnd));
  if (trailing.length >= 2 && VERBISH.test(trailing[trailing.length - 1]) && VERBISH.test(trailing[trailing.length - 2]))
    return [trailing[trailing.length - 1]];
  const main = content(t.slice(whEnd, rel.index!));
  const last = main[main.length - 1];
  if (last && VERBISH.test(last)) return [last];
  return typeNoun ? tokens(typeNoun) : [];
}

function thresholdOf(q: string): Threshold | undefined {
  const m =
    /\b(exceed(?:ed|s)?|more than|over|above|greater than|higher than|larger than|at least|less than|fewer than|below|under|lower than|smaller than|at most)\s+([$€£]?\d[\d,]*(?:\.\d+)?)/i.exec(
      q,
    );
  if (!m) return undefined;
  const value = Number(m[2].replace(/[^\d.]/g, ''));
  if (!Number.isFinite(value)) return undefined;
  return { op: /less|fewer|below|under|lower|smaller|at most/i.test(m[1]) ? '<' : '>', value };
}

/** The claim of a yes/no question: "born before 1960" -> before 1960; "headquartered in X" -> eq X; "available in cobalt" -> eq cobalt. */
function claimOf(q: string, ents: string[]): YesNoClaim | undefined {
  const t = q.trim().replace(/\?+$/, '');
  const when = /\b(before|after|earlier than|later than|prior to|since|by)\s+(\d{3,4})\s*$/i.exec(t);
  if (when) return { value: when[2], op: /after|later|since/i.test(when[1]) ? 'after' : 'before' };
  const cmp =
    /\b(more than|over|above|greater than|higher than|larger than|less than|fewer than|below|under|lower than|smaller than)\s+([$€£]?\d[\d,]*(?:\.\d+)?)/i.exec(
      t,
    );
  if (cmp) return { value: cmp[2], op: /less|fewer|below|under|lower|smaller/i.test(cmp[1]) ? '<' : '>' };
  const last = ents[ents.length - 1];
  if (last && ents.length >= 2 && t.endsWith(last)) {
    const before = t.slice(0, t.length - last.length).trim();
    if (/\b(in|at|on|from|by|as|of|to|with|for|into|near)$/i.test(before) || /\b(?:is|was|are|were)\s+(?:the|a|an)?$/i.test(before))
      return { value: last, op: 'eq' };
  }
  const tail = /\b(?:in|as|with|by|from|at|of|to)\s+(?:the\s+|a\s+|an\s+)?([a-z][a-z -]{1,30})$/i.exec(t);
  if (tail && !ents.some((e) => containsPhrase(tail[1], e))) return { value: tail[1].trim(), op: 'eq' };
  return undefined;
}

function baseType(q: string, typeNoun: string | undefined, head: string[]): Exclude<AnswerType, 'yes-no' | 'list' | 'choice'> {
  const l = q.toLowerCase();
  const tn = typeNoun ? wordKey(typeNoun.split(' ').pop()!) : '';
  if (/\b(?:what|which) (?:\w+ )?(?:year|decade)\b|\bin what year\b|\byear (?:did|was|were|of)\b/.test(l) || (tn && ['year'].includes(tn))) return 'year';
  if (/^when\b|\bwhat date\b|\bon what day\b|\bwhich date\b|\bwhen (?:was|were|did|is|does)\b/.test(l) || tn === 'date' || tn === 'day') return 'date';
  if (/\bhow (many|much|long|far|old|tall|big|large|high|heavy|wide|deep)\b|\bwhat percent(?:age)?\b|\bnumber of\b/.test(l)) return 'number';
  if (head.length && MEASURE_NOUNS.has(wordKey(head[head.length - 1]))) return 'number';
  if (/^(?:what|which) (?:was|is|were|are) the (?:\d{4} )?(\w+)/.test(l)) {
    const n = /^(?:what|which) (?:was|is|were|are) the (?:\d{4} )?(\w+)/.exec(l)![1];
    if (MEASURE_NOUNS.has(wordKey(n))) return 'number';
  }
  if (/^(?:who|whom|whose)\b|\bby whom\b|\bwhom\b|\bby who\b|\bwho\s*\??\s*$/.test(l)) return 'person';
  // "What is an American company that ...?": a description; the answer is what it describes.
  if (/^(?:what|which) (?:is|was|are|were) (?:a|an) /.test(l) && head.length) {
    const hn = wordKey(head[head.length - 1]);
    return PERSON_NOUNS.has(hn) ? 'person' : PLACE_NOUNS.has(hn) ? 'place' : 'entity';
  }
  if (tn && PERSON_NOUNS.has(tn)) return 'person';
  if (/^where\b|\bwhere (?:is|was|are|were|did|does|do)\b/.test(l)) return 'place';
  if (tn && PLACE_NOUNS.has(tn)) return 'place';
  if (tn && TIME_NOUNS.has(tn)) return 'year';
  if (typeNoun && !/^(type|kind|sort|category)/.test(typeNoun)) return 'entity';
  return 'span';
}

/** Named things of the question, without a leading connective or preposition and without bare numbers. */
function questionEntities(text: string): string[] {
  return entities(text)
    .map((e) =>
      e
        .replace(/['’]s$/, '')
        .replace(
          /^(?:besides|except|apart|unlike|like|although|though|while|since|after|before|during|despite|including|excluding|from|as|if|when|whereas|because|also|then|and|but|or|nor|so|yet|in|on|at|of|for|by|with|to|into|out)\s+/i,
          '',
        ),
    )
    .filter((e) => !/^\d+$/.test(e));
}

/** Choice: "Which is heavier, A or B?" / "Who was born first, A or B?" (also "Is A or B older?"). */
function choiceOf(text: string, l: string, ents: string[]): QuestionInfo['choice'] {
  if (!(/\bor\b/i.test(text) && (WH.test(text) || /^(?:is|are|was|were|did|does|do)\b/i.test(l)))) return undefined;
  const options = choiceOptions(text, ents);
  if (!options) return undefined;
  // "more recently": the temporal / attribute-bearing comparative says more than "more".
  const cws = tokens(l)
    .map((w) => COMPARATIVES[w])
    .filter(Boolean);
  const cw = cws.find((c) => c.temporal || c.attr.length) ?? cws[0];
  return { options, dir: cw?.dir ?? 'max', temporal: cw?.temporal ?? false };
}

/** Topics: named things, without the options of a choice and without years. */
function topicsOf(ents: string[]): string[] {
  const named = ents.filter((e) => !/^(?:1[0-9]{3}|20[0-9]{2})$/.test(e) && !STOPWORDS.has(e.toLowerCase()) && !AUX.has(e.toLowerCase()) && !/^into$/i.test(e));
  // "British", "Danish": an adjective of origin describes (a relation word), it is not what the question starts from.
  const demonyms = named.filter((e) => DEMONYM_WORD.test(e));
  return named.length > demonyms.length ? named.filter((e) => !DEMONYM_WORD.test(e)) : named;
}

/** Relation terms: content words outside the topics, plus the attributes comparatives compare. */
function relationTerms(text: string, topics: string[], typeNoun: string | undefined, headWords: string[], valueType: AnswerType): RelTerm[] {
  const topicTokens = new Set(topics.flatMap((e) => tokens(e)));
  const toks = tokens(text);
  const typeTokens = new Set(typeNoun ? tokens(typeNoun) : []);
  const headSet = new Set(headWords);
  const terms: RelTerm[] = [];
  const seen = new Set<string>();
  toks.forEach((w, pos) => {
    if (
      THRESHOLD_WORDS.has(w) ||
      STOPWORDS.has(w) ||
      WH_WORDS.has(w) ||
      AUX.has(w) ||
      NOT_TERMS.has(w) ||
      topicTokens.has(w) ||
      /^\d[\d,.]*$/.test(w) ||
      w.length < 2
    )
      return;
    // A comparative is no relation word; it brings the attribute it compares (below).
    if (COMPARATIVES[w]) return;
    const key = wordKey(w);
    if (seen.has(key)) return;
    seen.add(key);
    terms.push({ word: w, key, keys: expandKey(key), pos, typeWord: typeTokens.has(w), head: headSet.has(w) });
  });
  // "Which city/country ...": attributes that hold a place answer it (Location, Headquarters, Seat...).
  // Only for town-level nouns: a headquarters or location is a city, not a province or a country.
  if (valueType === 'place' && (!typeNoun || /^(?:city|town|place|location|village|municipality|site)$/.test(typeNoun))) {
    for (const t of terms) if (t.typeWord) t.keys = new Set([...t.keys, ...PLACE_ATTRIBUTE_KEYS]);
  }
  // Comparatives bring the attribute they compare ("heavier" -> weight).
  for (const w of toks) {
    const c = COMPARATIVES[w];
    if (!c) continue;
    for (const a of c.attr) {
      const key = wordKey(a);
      if (seen.has(key)) continue;
      seen.add(key);
      terms.push({ word: a, key, keys: expandKey(key), pos: toks.indexOf(w), typeWord: false, head: false });
    }
  }
  return terms;
}

/** Units named by the question: "in grams", "in million credits", "how many people". */
function unitsOf(text: string, ents: string[], valueType: AnswerType): string[] {
  const units: string[] = [];
  const inUnit =
    /\b(?:in|into)\s+((?:million|billion|thousand)\s+)?([a-z%]+(?:\s[a-z]+)?)\s*\??$/i.exec(text) ??
    /,\s*in\s+((?:million|billion|thousand)\s+)?([a-z%]+)/i.exec(text);
  if (inUnit && valueType === 'number' && !ents.some((e) => containsPhrase(e, inUnit[2]))) {
    for (const u of inUnit[2].split(' ')) units.push(...(unitForms(u).length ? unitForms(u) : [u.toLowerCase()]));
    if (inUnit[1]) units.push(inUnit[1].trim().toLowerCase());
  }
  const howMany =
    /\bhow many\s+((?:[a-z]+\s+){0,2}?[a-z]+)\s+(?:do|does|did|is|are|was|were|has|have|had|can|will|would|above|below|in|of|work|live)\b/i.exec(text) ??
    /\bhow many\s+([a-z]+)/i.exec(text);
  if (howMany) for (const u of howMany[1].split(' ')) units.push(...(unitForms(u).length ? unitForms(u) : [u.toLowerCase()]));
  const measured = /\bhow (long|tall|high|far|heavy|old)\b/i.exec(text);
  if (measured && /old/i.test(measured[1])) units.push('years', 'year', 'years old');
  return units;
}

/** Lists: plural type nouns ("which years", "which colours"), "which two", "name the ... and ...". */
function listWanted(
  l: string,
  typeNoun: string | undefined,
  o: { isYesNo: boolean; choice: boolean; threshold: boolean; valueType: AnswerType },
): { wantsList: boolean; plural: boolean } {
  const pluralNoun = typeNoun && /[^su]s$/.test(typeNoun.split(' ').pop()!) && !/(ss|ics|news|series|species)$/.test(typeNoun);
  const wantsList =
    !o.isYesNo &&
    !o.choice &&
    (Boolean(pluralNoun) ||
      /\b(which|what) (two|three|four|five)\b|\b(?:name|list|give|identify|what are) (?:all |both |the )?(?:the )?(two|three|four|five)\b|\blist (?:all|the)\b|\bname (?:all|both)\b/.test(
        l,
      ) ||
      (o.threshold && o.valueType === 'year'));
  return { wantsList, plural: Boolean(pluralNoun) };
}

/** A yes/no question's structure: a pair ("are A and B both..."), a comparison ("A before B"), or a claim. */
function yesNoParts(text: string, l: string, ents: string[], topics: string[]): Pick<QuestionInfo, 'pair' | 'versus' | 'claim'> {
  let pair: QuestionInfo['pair'];
  let versus: QuestionInfo['versus'];
  const both =
    /^(?:are|were|is|was|do|did|does|have|had)\s+(?:both\s+)?(.+?)\s+and\s+(.+?)\s+(?:both\b|the same\b|from the same\b|of the same\b|in the same\b|located in the same\b|\w+ed\b|\w+s\b)/i.exec(
      text,
    );
  if (both && ents.length >= 2) {
    const a = ents.find((e) => containsPhrase(both[1], e)) ?? stripArticle(both[1]);
    const b = ents.find((e) => containsPhrase(both[2], e) && e !== a) ?? stripArticle(both[2]);
    pair = { a, b, same: /\bsame\b/i.test(l) };
  }
  const vs =
    /\b(before|after|earlier than|later than|prior to|(\w+er) than|more \w+ than|less \w+ than|fewer \w+ than)\s+(?:the\s+|a\s+|an\s+)?(.+?)\s*\??$/i.exec(
      text,
    );
  if (!pair && vs && topics.length >= 2) {
    const b = topics.find((e) => containsPhrase(vs[3], e));
    const a = topics.find((e) => e !== b && text.indexOf(e) < vs.index);
    if (a && b) {
      const word = vs[1].toLowerCase();
      const comp = COMPARATIVES[vs[2]?.toLowerCase() ?? ''] ?? (/^more|^less|^fewer/.test(word) ? COMPARATIVES[word.split(' ')[0]] : undefined);
      const temporal = /^(before|after|earlier|later|prior)/.test(word) || Boolean(comp?.temporal);
      const dir: 'max' | 'min' = /^(after|later)/.test(word) ? 'max' : /^(before|earlier|prior)/.test(word) ? 'min' : (comp?.dir ?? 'max');
      versus = { a, b, dir, temporal };
    }
  }
  const claim = !pair && !versus ? claimOf(text, ents) : undefined;
  return { pair, versus, claim };
}

/** The value type a yes/no claim checks. */
function claimValueType(claim: YesNoClaim): QuestionInfo['valueType'] {
  if (claim.op === 'before' || claim.op === 'after') return 'year';
  if (claim.op === '>' || claim.op === '<') return 'number';
  return /^[A-Z]/.test(claim.value) ? 'entity' : 'span';
}

/** What is asked, when no head phrase said it: mark those terms. */
function markAsked(text: string, terms: RelTerm[], topics: string[], typeNoun: string | undefined, o: { claim?: YesNoClaim; structured: boolean }): void {
  const tail = o.claim
    ? new RegExp(
        `\\s*\\b(?:before|after|earlier than|later than|prior to|since|by|more than|over|above|greater than|higher than|larger than|less than|fewer than|below|under|lower than|smaller than|in|at|on|from|as|of|to|with|for|into|near|is|was|are|were)?\\s*(?:the\\s+|a\\s+|an\\s+)?${o.claim.value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`,
        'i',
      )
    : undefined;
  const asked = o.structured ? [] : askedWordsOf(text, topics, typeNoun, [], tail);
  const askedKeys = new Set(asked.map(wordKey));
  for (const t of terms) t.head = askedKeys.has(t.key);
}

/** Arithmetic over found values ("average", "in total", "twice"), or a number in a named unit. */
function isCalculation(l: string, valueType: AnswerType, units: string[]): boolean {
  return (
    /\b(average|each|per|total|combined|altogether|sum|difference|how old|in all|(?:two|three|four|five|six|seven|eight|nine|ten|twice|double|half) (?:\w+ )?(?:units?|items?|times|of))\b/i.test(
      l,
    ) ||
    (valueType === 'number' && units.length > 0 && /,?\s+in\s+[a-z]+\s*\??$/i.test(l))
  );
}

export function analyzeQuestion(question: string): QuestionInfo {
  const text = question.replace(/\s+/g, ' ').trim();
  const l = text.toLowerCase();
  const ents = questionEntities(text);
  const headWords = headPhraseOf(text);
  const typeNoun =
    typeNounOf(text) ?? (/^(?:what|which) (?:is|was|are|were) (?:a|an) /i.test(text) && headWords.length ? headWords[headWords.length - 1] : undefined);
  let valueType = baseType(text, typeNoun, headWords);
  const years = [...text.matchAll(/\b(1[0-9]{3}|20[0-9]{2})\b/g)].map((m) => m[1]);
  const isYesNo = new RegExp(`^(?:${[...AUX].join('|')})\\b`, 'i').test(l) && !/\bor\b[^?]*\?\s*$/.test(l);
  const choice = choiceOf(text, l, ents);
  const topics = topicsOf(ents);
  const terms = relationTerms(text, topics, typeNoun, headWords, valueType);
  const units = unitsOf(text, ents, valueType);

  // Superlative over a series: "In which year was the revenue highest?", "the most papers".
  let superlative: QuestionInfo['superlative'];
  if (!choice) {
    const sup = tokens(text).find((w) => /est$|^most$|^least$|^fewest$/.test(w) && COMPARATIVES[w]);
    if (sup && (valueType === 'year' || typeNoun)) superlative = { dir: COMPARATIVES[sup].dir };
  }
  const threshold = thresholdOf(text);
  const list = listWanted(l, typeNoun, { isYesNo, choice: !!choice, threshold: threshold !== undefined, valueType });
  if (list.plural && TIME_NOUNS.has(wordKey(typeNoun!.split(' ').pop()!))) valueType = 'year';

  let type: AnswerType = valueType;
  let parts: Pick<QuestionInfo, 'pair' | 'versus' | 'claim'> = {};
  if (isYesNo) {
    type = 'yes-no';
    parts = yesNoParts(text, l, ents, topics);
    if (parts.claim) valueType = claimValueType(parts.claim);
  } else if (choice) type = 'choice';
  else if (list.wantsList) type = 'list';
  const { pair, versus, claim } = parts;

  if (!headWords.length) markAsked(text, terms, topics, typeNoun, { claim, structured: type === 'choice' || !!pair || !!versus });

  return {
    text,
    type,
    valueType,
    typeNoun,
    topics: choice ? topics.filter((e) => !choice.options.some((o) => containsPhrase(o, e) || containsPhrase(e, o))).concat() : topics,
    terms,
    years: years.filter((y) => !(claim && claim.value === y) && !(threshold && String(threshold.value) === y)),
    units: [...new Set(units)],
    choice,
    superlative,
    threshold,
    claim,
    pair,
    versus,
    negated: /\b(not|never|n't)\b/i.test(l),
    description: /^(?:what|which|who) (?:is|was|are|were) (?:a|an) /i.test(text),
    whFinal: /\b(?:what|whom|who|which|where|when)\s*\??\s*$/i.test(text) && !/^(?:what|whom|who|which|where|when)\s*\??$/i.test(text.trim()),
    calculation: isCalculation(l, valueType, units),
  };
}
