/**
 * Training questions in bulk over an existing demo world (the GNN's "demo-world
 * questions generated in bulk"): the same templates as the evaluation questions
 * (questions.ts), instantiated on every core entity, several rounds each with
 * its own seeded stream (other years, other comparison partners, other yes/no
 * probes), then kept only when they differ from every evaluation question.
 *
 * The world itself is untouched: this reads a planned world and never changes
 * its documents, facts or evaluation questions (the presets' bytes stay the same).
 * It lives in a sub-folder on purpose: the world's generator hash (write.ts
 * demoGeneratorHash) covers lib/demo/*.ts, and this file does not change a world.
 *
 * What "differs from every evaluation question" means (both must hold):
 *  1. the normalised text (lower case, punctuation and spacing folded) is not an
 *     evaluation question's text;
 *  2. the pair (template, set of gold documents) is not an evaluation question's.
 * Rule 2 matters for retrieval: "Was X founded before 1990?" and "... before
 * 1994?" read different but ask a retriever for the same documents by the same
 * route, so a model trained on one has in effect seen the other. A question with
 * the same gold documents but another template (another relation, another route
 * through the graph) is kept: that is ordinary knowledge of the world, as a
 * reader of the corpus would have. Inside the bulk set, each (template, gold
 * documents) pair is kept once, so no retrieval problem is repeated with only a
 * number changed.
 */
import type { Question } from '../../bench/types';
import { makeRng } from '../../util/rng';
import type { PlannedWorld } from '../generate';
import { TEMPLATES, toQuestion } from '../questions';

export interface BulkQuestionOptions {
  /** Seed of the bulk streams (independent of the world's seed). */
  seed: string | number;
  /** Instantiation rounds per template and entity (each round draws its own years, partners and probes). */
  rounds?: number;
  /** At most this many questions (after filtering), a seeded sample when more are available. */
  max?: number;
}

export interface BulkQuestions {
  questions: Question[];
  /** Candidates dropped, by reason. */
  dropped: { sameTextAsEvaluation: number; sameTemplateAndGoldAsEvaluation: number; repeatedInBulk: number; overMax: number };
}

/** Lower case, punctuation dropped, spacing folded: "Was X founded before 1990?" == "was x founded before 1990". */
export function normaliseQuestionText(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The retrieval identity of a question: its template and its set of gold documents. */
export function templateGoldKey(q: Pick<Question, 'goldDocs' | 'meta'>): string {
  const template = String((q.meta as { template?: unknown } | undefined)?.template ?? '');
  return `${template}\u0000${[...new Set(q.goldDocs)].sort().join('\u0001')}`;
}

/** Every instantiation of every template on every core entity, `rounds` times, in a fixed order. */
function allCandidates(planned: PlannedWorld, seed: string, rounds: number): Question[] {
  const { model, world } = planned;
  const docs = new Map(world.docs.map((d) => [d.id, d]));
  const out: Question[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const t of TEMPLATES) {
      const ctx = { model, facts: world.facts, rng: makeRng(seed).fork(`bulk/${round}/template/${t.id}`) };
      for (const e of model.core) {
        if (e.type !== t.on) continue;
        const made = t.make(e, ctx);
        if (made) out.push(toQuestion({ ...made, template: t.id, stratum: t.stratum }, world.facts, docs));
      }
    }
  }
  return out;
}

/** Bulk training questions over `planned` (a world from planWorld), disjoint from its evaluation questions by the two rules above. */
export function bulkQuestions(planned: PlannedWorld, o: BulkQuestionOptions): BulkQuestions {
  const seed = String(o.seed);
  const evalTexts = new Set(planned.world.questions.map((q) => normaliseQuestionText(q.question)));
  const evalKeys = new Set(planned.world.questions.map(templateGoldKey));
  const dropped = { sameTextAsEvaluation: 0, sameTemplateAndGoldAsEvaluation: 0, repeatedInBulk: 0, overMax: 0 };
  const seenKeys = new Set<string>();
  const kept: Question[] = [];
  for (const q of allCandidates(planned, seed, o.rounds ?? 4)) {
    const key = templateGoldKey(q);
    if (evalTexts.has(normaliseQuestionText(q.question))) dropped.sameTextAsEvaluation++;
    else if (evalKeys.has(key)) dropped.sameTemplateAndGoldAsEvaluation++;
    else if (seenKeys.has(key)) dropped.repeatedInBulk++;
    else {
      seenKeys.add(key);
      kept.push(q);
    }
  }
  let questions = makeRng(seed).fork('bulk/order').shuffle(kept);
  if (o.max !== undefined && questions.length > o.max) {
    dropped.overMax = questions.length - o.max;
    questions = questions.slice(0, o.max);
  }
  questions.forEach((q, i) => {
    q.id = `demo-bulk-${String(i + 1).padStart(5, '0')}`;
    q.meta = { ...q.meta, bulk: true };
  });
  return { questions, dropped };
}
