/**
 * Offline multi-hop reformulation, shared by the offline Locator and the
 * offline bridge judge: which documents were found (titles), which of them
 * are about an entity of the question (anchors), and which NAMES in an
 * anchor's text are the next hop ("... directed by Albert S. Rogell",
 * "... son of Henry IV"), ranked by the relation cue before them.
 *
 * Rules only; no model. The names become new queries: a title-like name is
 * the best query for the encyclopedic corpora of multi-hop benchmarks.
 */
import { containsPhrase, entities } from '../../util/text-rules';

export interface FoundHit {
  /** Document title (or id) of the hit. */
  doc: string;
  text: string;
  /** Fragment id and kind, when the result listed them. */
  id?: string;
  kind?: string;
}

const CONNECT = new Set(['of', 'de', 'la', 'von', 'van', 'der', 'du', 'le', 'del', 'da', 'di', 'y', 'bin', 'al', 'ibn', 'and']);
const NOT_NAME = new Set([
  'The',
  'A',
  'An',
  'It',
  'He',
  'She',
  'They',
  'His',
  'Her',
  'This',
  'That',
  'In',
  'On',
  'At',
  'For',
  'As',
  'By',
  'After',
  'Before',
  'During',
  'From',
  'With',
]);
const KIN_WORDS = ['son', 'daughter', 'child', 'children', 'father', 'mother', 'parents?', 'wife', 'husband', 'spouse', 'married', 'marriage'];
const KIN_MORE = [
  'brother',
  'sister',
  'sibling',
  'uncle',
  'aunt',
  'grand(?:father|mother|son|daughter)',
  'nephew',
  'niece',
  'cousin',
  'in-law',
  'widow',
  'consort',
  'heir',
];
const KIN = new RegExp(`\\b(${[...KIN_WORDS, ...KIN_MORE].join('|')})\\b`, 'i');
const BY_CUE = /\bby\s*$/i;
/** The relation a question asks about -> the words that introduce its value in an encyclopedic text. */
const RELATION_CUES: [RegExp, RegExp][] = [
  [/\bdirector/i, /\b(directed by|director|directors|film by|directed and written by|written and directed by)\s*$/i],
  [/\bcomposer/i, /\b(composed by|music by|score by|composer|scored by)\s*$/i],
  [/\b(performer|singer|sung|recorded)/i, /\b(by|performed by|recorded by|singer|artist|band|rapper)\s*$/i],
  [/\bproducer/i, /\b(produced by|producer)\s*$/i],
  [/\b(writer|author|novelist|screenwriter)/i, /\b(written by|author|novel by|screenplay by)\s*$/i],
  [/\bfounder/i, /\b(founded by|founder)\s*$/i],
  [/\b(publisher|published)/i, /\b(published by|publisher)\s*$/i],
];
const KIN_CUE = /\b(son|daughter|child|children|father|mother|parent|parents|wife|husband|spouse|married|to|brother|sister|of|widow|consort|heir)\s*$/i;

/** Capitalised names, keeping initials ("Albert S. Rogell") and particles ("Christine of Hesse-Kassel"), with their offsets. */
export function nameMentions(text: string): { name: string; index: number }[] {
  const out: { name: string; index: number }[] = [];
  const re = /[\p{L}\p{M}'’.-]+|\S/gu;
  let cur: { w: string; i: number }[] = [];
  const flush = () => {
    while (cur.length && CONNECT.has(cur[cur.length - 1].w.toLowerCase())) cur.pop();
    while (cur.length && NOT_NAME.has(cur[0].w)) cur.shift();
    if (cur.length)
      out.push({
        name: cur
          .map((c) => c.w)
          .join(' ')
          .replace(/[.’']+$/, (m) => (/^[A-Z]\.$/.test(cur[cur.length - 1].w) ? m : '')),
        index: cur[0].i,
      });
    cur = [];
  };
  for (const m of text.matchAll(re)) {
    const w = m[0];
    const isInitial = /^[A-Z]\.$/.test(w);
    const isCap = /^[\p{Lu}][\p{L}\p{M}'’.-]*$/u.test(w);
    if (isCap || isInitial) {
      cur.push({ w: w.replace(/\.$/, isInitial ? '.' : ''), i: m.index! });
      if (!isInitial && /\.$/.test(w) && !/^(St|Mr|Mrs|Dr|Jr|Sr)\.$/.test(w)) flush();
    } else if (cur.length && CONNECT.has(w.toLowerCase())) cur.push({ w, i: m.index! });
    else flush();
  }
  flush();
  return out;
}

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/\s*\([^)]*\)\s*$/, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .replace(/^(?:the|a|an) /, '');

/** A found title covers a name when they are the same once a "(film)" qualifier and punctuation are dropped. */
export function titleCovers(title: string, name: string): boolean {
  const t = norm(title);
  const n = norm(name);
  // "Dark River (1990 film)" does not cover "Dark River (2017 Film)": when both carry a qualifier, it must agree.
  const qt = /\(([^)]*)\)\s*$/.exec(title)?.[1]?.toLowerCase();
  const qn = /\(([^)]*)\)\s*$/.exec(name)?.[1]?.toLowerCase();
  if (qt && qn && qt !== qn) return false;
  return !!t && !!n && (t === n || (n.length >= 6 && t.startsWith(`${n} `)));
}

const GENERIC = new Set(['film', 'song', 'movie', 'album', 'book', 'novel', 'band', 'director', 'performer', 'composer', 'the film', 'the song']);
const TAIL = /\s+(?:born|die|died|study|studied|work|works|come|comes|from|located|detained|buried|educated|established|founded|released|is|was)\b.*$/;

/** Titles a multi-hop question names, by its usual shapes ("..., A or B?", "films A and B", "of film A", "A's father"). */
export function questionTitles(question: string): string[] {
  const q = question.trim().replace(/\?+\s*$/, '');
  const out: string[] = [];
  const push = (t: string | undefined) => {
    const v = (t ?? '')
      .replace(TAIL, '')
      .replace(/^(?:.*\bof\s+)?(?:films?|movies?|songs?)\s+/, '')
      .replace(/^(?:the movies|the films|both|the)\s+/i, '')
      .replace(/['’]s$/i, '')
      .replace(/^(?:[a-z][\w-]*\s+)+/, '')
      .replace(/[\s,]+$/, '')
      .trim();
    if (v.length > 2 && !GENERIC.has(v.toLowerCase()) && /[A-Z0-9]/.test(v) && !out.some((o) => o.toLowerCase() === v.toLowerCase())) out.push(v);
  };
  let m = /(?:,|\b(?:first|later|earlier|older|younger|out of))\s+(.+?)\s+or\s+(.+)$/i.exec(q);
  if (m) {
    push(m[1].replace(/^.*?,\s*/, ''));
    push(m[2]);
  }
  m = /\b(?:[Aa]re|[Ww]ere|both|films|movies|of)\s+(.+?)\s+and\s+(.+?)(?:,|\s+(?:both|located|from|of|have|has|born|the same|in the same)\b|$)/.exec(q);
  if (m && !out.length) {
    push(m[1]);
    push(m[2]);
  }
  m = /\bof (?:the )?(?:film|song|album|movie|book|novel|band|group|series|show)\s+(.+?)(?:'s\s.*)?$/.exec(q);
  if (m) push(m[1]);
  m =
    /^(?:who|what|where|when|which)\s+(?:is|was|were|did|does|do)\s+(?:the\s+)?(?:nationality\s+(?:is|of)\s+)?(.+?)'s\s/i.exec(q) ??
    /^what nationality is\s+(.+?)'s\s/i.exec(q);
  if (m) push(m[1]);
  m = /\bof\s+([A-Z][^?]*)$/.exec(q);
  if (m && !/\b(?:film|song|album)\s/i.test(m[1])) push(m[1]);
  return out;
}

/** The question's entities: the titles it names, then other capitalised names not inside them. */
export function questionEntities(question: string): string[] {
  const titles = questionTitles(question);
  const rest = entities(question.replace(/[?]+\s*$/, ''))
    .map((e) => e.replace(/['’]s$/i, ''))
    .filter(
      (e) => (e.split(/\s+/).length > 1 || e.length > 3) && !GENERIC.has(e.toLowerCase()) && !titles.some((t) => t.toLowerCase().includes(e.toLowerCase())),
    );
  return [...titles, ...rest];
}

/** Found documents that are about an entity of the question (the first hop). */
export function anchorHits(question: string, hits: readonly FoundHit[]): FoundHit[] {
  const ents = questionEntities(question);
  const exact = hits.filter((h) => ents.some((e) => titleCovers(h.doc, e) || titleCovers(e, h.doc)));
  if (exact.length) return exact;
  return hits.filter((h) => norm(h.doc).length >= 6 && containsPhrase(question, h.doc.replace(/\s*\([^)]*\)\s*$/, '')));
}

/** Next-hop names in the anchors' text, best first: not found yet, not in the question, after a relation cue. */
export function bridgeNames(question: string, hits: readonly FoundHit[], opts: { max?: number } = {}): string[] {
  const kinQuestion = KIN.test(question);
  const qEnts = questionEntities(question).map(norm);
  const found = hits.map((h) => h.doc);
  const scored: { name: string; score: number; anchor: number }[] = [];
  anchorHits(question, hits).forEach((h, a) => {
    const text = h.text.slice(0, 600);
    for (const m of nameMentions(text)) {
      const n = norm(m.name);
      if (
        !n ||
        n.length < 4 ||
        qEnts.some((q) => q === n || q.includes(n) || n.includes(q)) ||
        titleCovers(h.doc, m.name) ||
        found.some((t) => titleCovers(t, m.name))
      )
        continue;
      const before = text.slice(Math.max(0, m.index - 40), m.index);
      let score = 1 - m.index / 1000;
      const cues = RELATION_CUES.filter(([q]) => q.test(question)).map(([, c]) => c);
      if (cues.some((c) => c.test(before))) score += 3;
      else if (!cues.length && BY_CUE.test(before)) score += 3;
      else if (BY_CUE.test(before)) score += 1;
      if (kinQuestion && KIN_CUE.test(before) && KIN.test(before)) score += 3;
      if (m.name.split(/\s+/).length >= 2) score += 1.5;
      else if (/(an|ese|ish|ic|ian)$/i.test(m.name)) score -= 3; // demonyms: "American", "Norwegian"
      scored.push({ name: m.name, score, anchor: a });
    }
  });
  // Best name per anchor first (each first-hop document gets its second hop), then the rest.
  scored.sort((x, y) => y.score - x.score);
  const out: string[] = [];
  const push = (n: string) => {
    if (!out.some((o) => norm(o) === norm(n))) out.push(n);
  };
  const anchors = [...new Set(scored.map((s) => s.anchor))].sort((x, y) => x - y); // first-found first-hop first
  const min = 2;
  for (const a of anchors) {
    const best = scored.find((s) => s.anchor === a && s.score >= min);
    if (best) push(best.name);
  }
  for (const s of scored) if (s.score >= min) push(s.name);
  return out.slice(0, opts.max ?? 6);
}

/** Question entities no found document title covers yet (comparison questions name both first hops). */
export function uncoveredEntities(question: string, hits: readonly FoundHit[]): string[] {
  return questionEntities(question).filter((e) => !hits.some((h) => titleCovers(h.doc, e) || titleCovers(e, h.doc)));
}
