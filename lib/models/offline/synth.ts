/**
 * Offline synthesizer: extractive answering over the numbered materials.
 *
 * 1. Split materials into units: sentences of text blocks, rows of tables
 *    (structured or Markdown), OCR lines of images, lines of reading notes.
 * 2. Score units by overlap with the question (entity words count double).
 * 3. Find the best single unit, or the best two-unit chain for bridge questions
 *    (unit 1 names an entity the question does not; unit 2 says the asked thing
 *    about it), that holds a candidate of the expected type.
 * 4. Extract the span: number, year, date, name, yes/no (comparing extracted
 *    values for comparisons), list or short span; or refuse when nothing matches.
 * The reply is prose citing [N] / [fig N], ending with `FINAL ANSWER: <value>`,
 * like a real synthesizer's.
 */
import type { AnswerConvention, Material, SynthTask } from './tasks';
import {
  containsPhrase, entities, numbers, overlapScore, questionKind, relationWords, sentences, stem, stemSet, tokens, years, type QuestionKind,
} from './text';

export interface Unit {
  text: string;
  /** Citation as rendered in the pool: [3] or [fig 2]. */
  ref: string;
  kind: 'sentence' | 'row' | 'ocr' | 'note';
  header?: string[];
  cells?: string[];
}

export interface ExtractiveAnswer {
  kind: QuestionKind;
  value: string | string[];
  refusal: boolean;
  /** Units the answer rests on (1 or 2), best first. */
  evidence: Unit[];
  explanation: string;
}

/** Parse a Markdown table (| a | b |) into header + rows; undefined when the text holds none. */
export function parseMarkdownTable(text: string): { header: string[]; rows: string[][] } | undefined {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('|'));
  if (lines.length < 2) return undefined;
  const split = (l: string) => l.replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
  const header = split(lines[0]);
  const body = lines.slice(1).filter((l) => !/^\|?\s*:?-{2,}/.test(l));
  return { header, rows: body.map(split) };
}

function citation(m: Material): string {
  const n = String(m.n);
  if (/^(fig|\[)/i.test(n)) return n.startsWith('[') ? n : `[${n}]`;
  return m.kind === 'image' || m.kind === 'table' ? `[fig ${n}]` : `[${n}]`;
}

export function buildUnits(task: Pick<SynthTask, 'materials' | 'notes'>): Unit[] {
  const units: Unit[] = [];
  for (const m of task.materials ?? []) {
    const ref = citation(m);
    const table = m.table ?? (m.kind === 'table' || m.text.includes('|') ? parseMarkdownTable(m.text) : undefined);
    if (table && table.rows.length) {
      for (const row of table.rows) {
        units.push({ ref, kind: 'row', header: table.header, cells: row, text: row.map((c, i) => (table.header[i] ? `${table.header[i]}: ${c}` : c)).join('; ') });
      }
    }
    const prose = table ? m.text.split('\n').filter((l) => !l.trim().startsWith('|')).join('\n') : m.text;
    for (const s of sentences([m.caption, prose].filter(Boolean).join('\n\n'))) units.push({ ref, kind: 'sentence', text: s });
    for (const line of (m.ocrText ?? '').split('\n')) if (line.trim()) units.push({ ref, kind: 'ocr', text: line.trim() });
  }
  (task.notes ?? []).forEach((note, i) => {
    for (const line of note.split('\n')) for (const s of sentences(line)) units.push({ ref: `[note ${i + 1}]`, kind: 'note', text: s.replace(/^(where|answer):\s*/i, '') });
  });
  return units;
}

const MONTHS = 'January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec';
const DATE_RE = new RegExp(`\\b(?:(?:${MONTHS})\\.? \\d{1,2}(?:st|nd|rd|th)?,? \\d{4}|\\d{1,2} (?:${MONTHS}) \\d{4}|\\d{4}-\\d{2}-\\d{2}|(?:${MONTHS}) \\d{4})\\b`, 'g');

interface Cand {
  text: string;
  index: number;
}

/** Position of the first relation word in a text (for proximity ranking), or -1. */
function relationPos(text: string, relStems: Set<string>): number {
  const re = /[A-Za-z0-9]+/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) if (relStems.has(stem(m[0].toLowerCase()))) return m.index;
  return -1;
}

function inQuestion(question: string, value: string): boolean {
  return containsPhrase(question, value) || tokens(value).every((t) => tokens(question).includes(t));
}

/** Candidates of the expected kind in one unit, best first. `exclude` = entities of earlier hops. */
export function candidates(unit: Unit, kind: QuestionKind, question: string, relStems: Set<string>, exclude: string[] = []): string[] {
  const excluded = (v: string) => inQuestion(question, v) || exclude.some((e) => containsPhrase(e, v) || containsPhrase(v, e));
  if (unit.kind === 'row' && unit.cells && unit.header) {
    const scored = unit.cells
      .map((c, i) => ({ c, i, s: tokens(unit.header![i] ?? '').filter((t) => relStems.has(stem(t))).length }))
      .filter((x) => x.c && !excluded(x.c) && fits(x.c, kind));
    scored.sort((a, b) => b.s - a.s || a.i - b.i);
    return scored.map((x) => x.c);
  }
  const text = unit.text;
  const keep = (cs: Cand[]) => cs.filter((c) => c.text && !excluded(c.text));
  const nums = () => keep(numbers(text).map((n) => ({ text: n.text, index: n.index })));
  const yrs = () => keep(years(text).map((y) => ({ text: y, index: text.indexOf(y) })));
  const names = () => keep(entities(text).map((e) => ({ text: e, index: text.indexOf(e) })));
  let found: Cand[] = [];
  switch (kind) {
    case 'number':
      found = nums();
      break;
    case 'year':
      found = yrs();
      break;
    case 'date':
      found = keep([...text.matchAll(DATE_RE)].map((m) => ({ text: m[0], index: m.index! })));
      if (!found.length) found = yrs();
      break;
    case 'name':
    case 'list':
      found = names();
      break;
    default:
      found = names();
      if (!found.length) found = nums();
      if (!found.length) {
        const m = /\b(?:is|was|are|were|be|called|named)\s+([^,.;:]{2,60})/.exec(text);
        if (m) found = keep([{ text: m[1].replace(/^(?:a|an|the)\s+/i, '').trim(), index: m.index }]);
      }
  }
  const pos = relationPos(text, relStems);
  if (pos >= 0) found.sort((a, b) => Math.abs(a.index - pos) - Math.abs(b.index - pos) || a.index - b.index);
  return [...new Set(found.map((c) => c.text))];
}

function fits(cell: string, kind: QuestionKind): boolean {
  if (kind === 'number') return numbers(cell).length > 0;
  if (kind === 'year') return years(cell).length > 0;
  return true;
}

const EARLIER = /\b(before|earlier|first|sooner|prior to|older)\b/i;
const LATER = /\b(after|later|more recent(?:ly)?|newer|younger)\b/i;
const GREATER = /\b(more|larger|bigger|higher|greater|longer|taller|heavier|exceed(?:s|ed)?|older)\b/i;
const LESSER = /\b(less|fewer|smaller|lower|shorter|lighter|younger)\b/i;

/** Yes/no: compare extracted values for comparisons, else check the best unit states what the question says. */
function yesNo(question: string, units: { u: Unit; s: number }[], qStems: Set<string>): { yes: boolean; evidence: Unit[]; why: string } | undefined {
  const ents = entities(question);
  const isYearish = /\b(born|founded|established|released|published|year|built|formed|created|died|opened|started|began)\b/i.test(question);
  if (ents.length >= 2 && (EARLIER.test(question) || LATER.test(question) || GREATER.test(question) || LESSER.test(question))) {
    const valueOf = (e: string) => {
      for (const { u } of units) {
        if (!containsPhrase(u.text, e)) continue;
        const ys = years(u.text);
        const ns = numbers(u.text).filter((n) => !inQuestion(question, n.text));
        if (isYearish && ys.length) return { v: Number(ys[0]), u };
        if (ns.length) return { v: ns[0].value, u };
      }
      return undefined;
    };
    const a = valueOf(ents[0]);
    const b = valueOf(ents[1]);
    if (a && b) {
      let yes: boolean;
      if (isYearish && EARLIER.test(question)) yes = a.v < b.v;
      else if (isYearish && LATER.test(question)) yes = a.v > b.v;
      else if (GREATER.test(question)) yes = a.v > b.v;
      else if (LESSER.test(question)) yes = a.v < b.v;
      else if (EARLIER.test(question)) yes = a.v < b.v;
      else yes = a.v > b.v;
      return { yes, evidence: a.u === b.u ? [a.u] : [a.u, b.u], why: `${ents[0]}: ${a.v}; ${ents[1]}: ${b.v}` };
    }
  }
  const best = units[0];
  if (!best) return undefined;
  const covered = [...qStems].filter((w) => stemSet(best.u.text).has(w)).length / Math.max(1, qStems.size);
  const neg = (t: string) => /\b(not|never|no|n't|neither|nor)\b/i.test(t);
  const yes = covered >= 0.7 && neg(best.u.text) === neg(question);
  return { yes, evidence: [best.u], why: `the best matching statement covers ${Math.round(covered * 100)}% of the question` };
}

export function refusalFor(convention: AnswerConvention | undefined): string {
  return convention === 'multihoprag' ? 'Insufficient information' : 'Not answerable';
}

/** The extractive answer (value + evidence), without prose. */
export function extractAnswer(task: SynthTask): ExtractiveAnswer {
  const question = task.question;
  const kind = questionKind(question);
  const units = buildUnits(task);
  const ents = entities(question);
  const qStems = stemSet(question);
  const entStems = new Set(ents.flatMap((e) => tokens(e).map(stem)));
  const relStems = new Set(relationWords(question, ents).map(stem));
  const scored = units.map((u, i) => ({ u, i, s: overlapScore(qStems, entStems, u.text) })).sort((a, b) => b.s - a.s || a.i - b.i);
  const refuse = (why: string): ExtractiveAnswer => {
    if (task.convention === 'm3docvqa') {
      // Never refuse: commit to the most likely candidate of the best unit.
      for (const { u } of scored.slice(0, 3)) {
        const c = candidates(u, kind === 'yes-no' ? 'span' : kind, question, relStems);
        if (c.length) return { kind, value: c[0], refusal: false, evidence: [u], explanation: `${why}; the closest statement is ${u.ref}` };
      }
    }
    return { kind, value: refusalFor(task.convention), refusal: true, evidence: [], explanation: why };
  };
  if (!scored.length) return refuse('there are no materials');
  if (scored[0].s < 2) return refuse(`no material mentions ${ents.length ? ents.join(', ') : 'what the question asks'}`);

  if (kind === 'yes-no') {
    const r = yesNo(question, scored, qStems);
    if (r) {
      const word = task.convention === 'multihoprag' ? (r.yes ? 'Yes' : 'No') : r.yes ? 'yes' : 'no';
      return { kind, value: word, refusal: false, evidence: r.evidence, explanation: r.why };
    }
  }

  const top = scored.filter((x) => x.s > 0).slice(0, 8);
  let best: { score: number; hops: number; value: string[]; evidence: Unit[] } | undefined;
  const consider = (score: number, hops: number, value: string[], evidence: Unit[]) => {
    if (!value.length) return;
    if (!best || score > best.score || (score === best.score && hops < best.hops)) best = { score, hops, value, evidence };
  };
  for (const { u, s } of top) consider(s, 1, candidates(u, kind, question, relStems), [u]);
  // Bridge: unit 1 names an intermediate entity; unit 2 says the asked thing about it.
  for (const { u: u1, s: s1 } of top.slice(0, 5)) {
    const bridges = entities(u1.text).filter((e) => !inQuestion(question, e));
    for (const b of bridges) {
      for (const { u: u2 } of scored) {
        if (u2 === u1 || !containsPhrase(u2.text, b)) continue;
        const chain = overlapScore(qStems, entStems, `${u1.text} ${u2.text}`);
        if (chain <= s1) continue;
        consider(chain, 2, candidates(u2, kind, question, relStems, [b]), [u1, u2]);
      }
    }
  }
  if (!best) return refuse(`no material holds a ${kind === 'span' ? 'value' : kind} for the question`);
  const chosen: { score: number; hops: number; value: string[]; evidence: Unit[] } = best;
  const value = kind === 'list' ? chosen.value.slice(0, 5) : chosen.value[0];
  return {
    kind,
    value,
    refusal: false,
    evidence: chosen.evidence,
    explanation: chosen.hops === 2 ? `bridge through ${chosen.evidence[0].ref} to ${chosen.evidence[1].ref}` : `stated in ${chosen.evidence[0].ref}`,
  };
}

export function formatFinal(value: string | string[]): string {
  return Array.isArray(value) ? JSON.stringify(value) : value;
}

/** The synthesizer's reply text: short reasoning with citations, then `FINAL ANSWER: <value>`. */
export function synthReply(task: SynthTask): string {
  const a = extractAnswer(task);
  const lines: string[] = [];
  if (a.refusal) {
    lines.push(`The materials do not answer the question: ${a.explanation}.`);
  } else {
    for (const u of a.evidence) lines.push(`${u.ref} states: "${u.text.length > 300 ? `${u.text.slice(0, 297)}...` : u.text}"`);
    lines.push(`So the answer is ${formatFinal(a.value)} ${a.evidence.map((u) => u.ref).join(' ')}.`.replace(/\s+\./, '.'));
  }
  lines.push(`FINAL ANSWER: ${formatFinal(a.value)}`);
  return lines.join('\n');
}
