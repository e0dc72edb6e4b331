/**
 * Query entity linking (spec "seed mask"): the longest names of the question
 * found in the graph's dictionary (titles, their variants, extracted names),
 * then, for capitalised phrases of the question that matched nothing, the
 * nearest entity names (trigram cosine >= NEAREST_MIN). Each seed is weighted by
 * its inverse document frequency, so "United States" counts less than "Teutberga".
 * With `partial` > 0, a mention also links the titles it is the leading or trailing span of (partial-names.ts) when
 * no dictionary name matched it or the name it matched titles no passage, at `partial` x idf / candidates.
 * The nearest-name step is pluggable: the trigram index by default (the offline
 * stand-in), or the dense linker's answers (dense-link.ts, `linking = "stage"`).
 */
import { entities } from '../../util/text-rules';
import { skipKey } from '../graph/extract-offline';
import { nameKey, wordTokens } from '../graph/names';
import type { GraphView } from './graph-view';

export interface LinkedEntity {
  entity: number;
  /** The question's words that named it. */
  surface: string;
  weight: number;
  how: 'exact' | 'nearest' | 'partial';
}

export interface LinkResult {
  seeds: LinkedEntity[];
  /** Word positions of the question covered by a linked name (the rest carries the relation). */
  covered: Set<number>;
}

export const NEAREST_MIN = 0.8;
export const MAX_PER_NAME = 3;

/** Entities named like a mention, best first: the dense linker's answers, or the trigram index. */
export type NearestNames = (mention: string) => { entity: number; similarity: number }[];

/** A one-word name opening the question that no title gave ("Besides ..."): a capitalised word, not a name. */
function openingWord(view: GraphView, m: { from: number; key: string }, entity: number): boolean {
  return m.from === 0 && !m.key.includes(' ') && view.g.entityOrigin[entity] !== 'title';
}

/**
 * Partial-name candidates of a mention (partial-names.ts): the titles it is the leading or trailing span of, each at
 * `weight` / (their number) -- the uniform commonness prior of entity linking, P(e | m) = 1 / candidates.
 */
function addPartial(view: GraphView, key: string, surface: string, weight: number, add: (e: number, s: string, how: 'partial', sim: number) => void): void {
  const docs = view.partialDocs(key);
  for (const d of docs) {
    const e = view.g.docs[d].titleEntity;
    if (e >= 0) add(e, surface, 'partial', weight / docs.length);
  }
}

/**
 * `names`: the question's entity mentions from a recogniser (the pattern stage's condition terms when a model
 * parsed the query); default the rule NER of util/text-rules.
 */
export function linkQuery(
  view: GraphView,
  question: string,
  names: string[] = entities(question),
  nearest: NearestNames = (e) => view.names.nearest(e, MAX_PER_NAME, NEAREST_MIN),
  partial = 0,
): LinkResult {
  const toks = wordTokens(question);
  const byEntity = new Map<number, LinkedEntity>();
  const covered = new Set<number>();
  const add = (entity: number, surface: string, how: LinkedEntity['how'], sim = 1) => {
    const w = view.idf[entity] * sim;
    const cur = byEntity.get(entity);
    if (!cur || cur.weight < w) byEntity.set(entity, { entity, surface, weight: w, how });
  };
  let matches = view.matcher.scan(question, { requireCapital: true, skip: skipKey }, toks);
  // Lower-case questions (HotpotQA has some): multi-word names only, to keep common words out.
  if (!matches.length) matches = view.matcher.scan(question, { skip: (k) => skipKey(k) || !k.includes(' ') }, toks);
  for (const m of matches) {
    const ids = (view.g.aliases.get(m.key) ?? []).filter((id) => !openingWord(view, m, id));
    if (!ids.length) continue;
    for (let i = m.from; i < m.to; i++) covered.add(i);
    for (const id of ids.slice(0, MAX_PER_NAME)) add(id, question.slice(m.start, m.end), 'exact');
    // A name that titles no passage cannot be its own first hop: the titles it partly names may be.
    if (partial && ids.every((id) => !view.titleDocsOf[id].length)) addPartial(view, m.key, question.slice(m.start, m.end), partial, add);
  }
  for (const e of names) {
    const key = nameKey(e);
    if (skipKey(key) || matches.some((m) => m.key === key || question.slice(m.start, m.end).includes(e))) continue;
    for (const n of nearest(e).slice(0, MAX_PER_NAME)) add(n.entity, e, 'nearest', n.similarity);
    if (partial) addPartial(view, key, e, partial, add);
  }
  const seeds = [...byEntity.values()].sort((a, b) => b.weight - a.weight || a.entity - b.entity);
  return { seeds, covered };
}
