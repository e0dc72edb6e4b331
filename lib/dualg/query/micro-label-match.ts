/**
 * Label matching on the micro graph (one document's fragments). Micro facts keep a chart's labels and a table's
 * column headers as the fact RELATION ((chart, "Greens", 45), (row, "Broadband at home", 47%)), and the names
 * on the image's own anchor (its label "Figure 3"). Graph-level matching reaches a relation only through a parsed
 * condition triple, and node-level boosting reads only the question's capitalised names, so "What percentage of
 * Greens ..." or "How many subfigures are in Figure 3?" never met their facts. Here:
 *  - a fact's label is matched by the question's content words: coverage = share of the label's content-word stems
 *    found in the question, kept when >= GATE (the matcher's semantic gate);
 *  - a reference to a figure in the question ("Figure 3", "Fig. 3") matches the image facts whose subject is that figure
 *    (its label, or a caption opening with "Figure 3"; captions left in the page text are anchored by the graph builder).
 * The score goes to the fragment the fact came from, divided by the number of the document's fragments holding
 * that label (or anchor): the within-document idf rule node-level boosting uses. No new constant. Label scores join
 * the micro tie-breaker (searcher.ts FRAGMENT_BOOST); a figure reference names its fragment outright and ranks it
 * with the hybrid's first hit (REFERENCE_SCORE). Label matching is off by default (LABEL_MATCH_DEFAULTS).
 * Document scores are left alone: a label such as "Total" says nothing about which document to read.
 */
import { figureAnchor } from '../graph/micro';
import type { MicroFact } from '../graph/types';
import { contentWords, stem } from '../../util/text-rules';
import { GATE } from './micro-match';

/** Relations of image facts that are not labels (lib/dualg/graph/micro.ts: caption names, OCR names, printed captions). */
const NOT_LABELS = new Set(['shows', 'text', 'caption']);
/** A table column without a header gets "column N" (lib/dualg/graph/micro.ts): no label. */
const UNNAMED_COLUMN = /^column \d+$/;

/** The distinct content-word stems of a text that contain a letter (numbers are values, not label words). */
export function labelStems(text: string): string[] {
  return [
    ...new Set(
      contentWords(text)
        .filter((w) => /\p{L}/u.test(w) && w.length >= 2)
        .map(stem),
    ),
  ];
}

/** The anchor key of an image's subject: "Figure 3", "Fig. 3", "Figure 3: Results" -> "figure 3"; undefined for other names. */
export function figureKey(subject: string): string | undefined {
  return figureAnchor(subject)?.toLowerCase();
}

/** Figure references of a question ("Figure 3", "Fig. 3", "figure 3(b)") as anchor keys. */
export function figureReferences(question: string): string[] {
  const out = new Set<string>();
  for (const m of question.matchAll(/\b(?:figure|fig\.?)\s*(\d+)/gi)) out.add(`figure ${Number(m[1])}`);
  return [...out];
}

interface Group {
  /** Per fact of the group: the fact index. */
  facts: number[];
  /** Document -> the distinct fragments of that document holding the group's facts (within-document idf). */
  spread: Map<number, Set<string>>;
}

/** Facts grouped by label (relation stems) and by anchor key, with a word index over the labels. */
export class LabelIndex {
  readonly labels: { stems: string[]; group: Group }[] = [];
  private readonly byStem = new Map<string, number[]>();
  readonly anchors = new Map<string, Group>();

  constructor(readonly facts: MicroFact[]) {
    const byKey = new Map<string, number>();
    facts.forEach((f, i) => {
      const label = f.r.trim();
      if (!NOT_LABELS.has(label) && !UNNAMED_COLUMN.test(label)) this.addLabel(labelStems(label), byKey, f, i);
      const anchor = f.kind === 'image' ? figureKey(f.u) : undefined;
      if (anchor) addTo(this.anchors.get(anchor) ?? this.anchors.set(anchor, newGroup()).get(anchor)!, f, i);
    });
  }

  private addLabel(stems: string[], byKey: Map<string, number>, f: MicroFact, i: number): void {
    if (!stems.length) return;
    const key = [...stems].sort().join(' ');
    let id = byKey.get(key);
    if (id === undefined) {
      id = this.labels.length;
      byKey.set(key, id);
      this.labels.push({ stems, group: newGroup() });
      for (const s of stems) (this.byStem.get(s) ?? this.byStem.set(s, []).get(s)!).push(id);
    }
    addTo(this.labels[id].group, f, i);
  }

  /** Labels sharing a stem with the question, with their coverage (share of the label's stems in the question), gated. */
  matchingLabels(questionStems: Set<string>): { label: number; coverage: number }[] {
    const seen = new Set<number>();
    const out: { label: number; coverage: number }[] = [];
    for (const s of questionStems) {
      for (const id of this.byStem.get(s) ?? []) {
        if (seen.has(id)) continue;
        seen.add(id);
        const { stems } = this.labels[id];
        const coverage = stems.filter((x) => questionStems.has(x)).length / stems.length;
        if (coverage >= GATE) out.push({ label: id, coverage });
      }
    }
    return out;
  }
}

const newGroup = (): Group => ({ facts: [], spread: new Map() });

function addTo(g: Group, f: MicroFact, i: number): void {
  g.facts.push(i);
  (g.spread.get(f.doc) ?? g.spread.set(f.doc, new Set()).get(f.doc)!).add(f.fragmentId);
}

const cache = new WeakMap<MicroFact[], LabelIndex>();

/** The label index of a fact list, built once per list. */
export function labelIndexOf(facts: MicroFact[]): LabelIndex {
  let idx = cache.get(facts);
  if (!idx) cache.set(facts, (idx = new LabelIndex(facts)));
  return idx;
}

export interface LabelMatchOptions {
  /** Match fact labels (relations) by the question's content words. */
  labels: boolean;
  /** Match "Figure N" in the question to the anchor of that name. */
  figures: boolean;
}

/**
 * Label matching is off by default: on MMLongBench-Doc dev it changed R@8 on one question (+0.11) and lost R@5 on four
 * (single-word labels such as "Albums" on the wrong slide), a choice made looking at those questions. Figure
 * references are on. See lib/dualg/scripts/mmlongbench.ts (rows dualg+labels, dualg-no-figures).
 */
export const LABEL_MATCH_DEFAULTS: LabelMatchOptions = { labels: false, figures: true };

/** Gives each fact of a group's fragments `score` over the number of the document's fragments in the group (max kept). */
function giveTo(out: Map<string, number>, index: LabelIndex, g: Group, score: number): void {
  for (const fi of g.facts) {
    const f = index.facts[fi];
    const v = score / g.spread.get(f.doc)!.size;
    if (v > (out.get(f.fragmentId) ?? 0)) out.set(f.fragmentId, v);
  }
}

/** Fragment id -> label score of the question (max over the fragment's matching facts). */
export function matchLabels(index: LabelIndex, question: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of index.matchingLabels(new Set(labelStems(question)))) giveTo(out, index, index.labels[m.label].group, m.coverage);
  return out;
}

/** Fragment id -> figure-reference score of the question: 1 over the number of the document's fragments anchored so. */
export function matchFigures(index: LabelIndex, question: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const ref of figureReferences(question)) {
    const g = index.anchors.get(ref);
    if (g) giveTo(out, index, g, 1);
  }
  return out;
}

/**
 * The one-document fragment scores of the micro graph: `boosts`, matchMicro's fragment scores (graph-level matches,
 * node boosting) with the label matches (max per fragment), and `referenced`, the fragments the question points to
 * by a figure reference.
 */
export function fragmentBoosts(
  sFragment: Map<string, number>,
  facts: MicroFact[],
  question: string,
  o: LabelMatchOptions = LABEL_MATCH_DEFAULTS,
): { boosts: Map<string, number>; referenced: Map<string, number> } {
  const index = labelIndexOf(facts);
  const boosts = new Map(sFragment);
  if (o.labels) for (const [id, v] of matchLabels(index, question)) if (v > (boosts.get(id) ?? 0)) boosts.set(id, v);
  return { boosts, referenced: o.figures ? matchFigures(index, question) : new Map() };
}
