/**
 * Error attribution as the KnowForge paper's Appendix G does it: every sampled
 * failure gets a class (A-G) from a classifier stage, a second reviewer stage
 * checks it, and the agreement between the two is reported.
 *
 * Two implementations of each stage:
 *  - model: one chat call per failure with the project's own prompts
 *    (prompts/error-classifier.txt, error-reviewer.txt), JSON replies;
 *  - rules (offline): the classifier reads the record's flags (refusal,
 *    partial credit, modality, retrieval), the reviewer reads the usage
 *    counters (reads, media looked at, searches) and the question's hops. They
 *    are rules, not models: tables label them "rule-based (offline)", and
 *    their agreement says how often two rule sets concur, nothing about a model.
 */
import type { ChatModel } from '../../model-api/types';
import { findJsonObject } from '../../model-api/json-repair';
import type { RunRecord } from '../../run/records';
import { fillPrompt } from '../../util/prompts';

export const ATTRIBUTION_CLASSES: Record<string, string> = {
  A: 'wrong field of the right source',
  B: 'wrong table row or column',
  C: 'image not read (closely enough)',
  D: 'multi-hop assembly',
  E: 'granularity / answer form',
  F: 'refusal with the answer in the material',
  G: 'other',
};

export interface Attribution {
  id: string;
  classifier: string;
  reviewer: string;
  agree: boolean;
  classifierReason: string;
  reviewerReason: string;
}

export type ClassifierStage = (rec: RunRecord) => Promise<{ class: string; reason: string }>;
export type ReviewerStage = (rec: RunRecord, proposed: string) => Promise<{ class: string; reason: string }>;

const modalityOf = (rec: RunRecord) => (rec.buckets?.modality ?? []).join('+').toLowerCase();
const hopsOf = (rec: RunRecord) => Number((rec.buckets?.hops ?? [])[0] ?? 1) || 1;

/** What the stages are told about a failure besides question and answers: the record's flags and counters. */
export function failureFacts(rec: RunRecord): string {
  const r = rec.retrieval ?? {};
  const c = rec.counters ?? {};
  const parts = [
    `modality ${modalityOf(rec) || 'unknown'}`,
    `hops ${hopsOf(rec)}`,
    r.docFound !== undefined ? `gold document found ${r.docFound === 1 ? 'yes' : 'no'}` : '',
    r.answerVisible !== undefined ? `answer text in the final material ${r.answerVisible === 1 ? 'yes' : 'no'}` : '',
    `searches ${c.searches ?? 0}, reads ${c.reads ?? 0}`,
    rec.scores?.refused === 1 ? 'the answer is a refusal' : '',
  ];
  return parts.filter(Boolean).join('; ');
}

const letter = (v: unknown) => {
  const m = /\b([A-G])\b/.exec(String(v ?? '').toUpperCase());
  return m ? m[1] : 'G';
};

/** Rule-based classifier (offline): from the record's flags. */
export const ruleClassifier: ClassifierStage = async (rec) => {
  const r = rec.retrieval ?? {};
  const mod = modalityOf(rec);
  if (rec.scores?.refused === 1 && r.answerVisible === 1) return { class: 'F', reason: 'refused while the answer text was in the material' };
  if ((rec.scores?.f1 ?? 0) > 0) return { class: 'E', reason: 'partial credit: the substance overlaps the gold' };
  if (hopsOf(rec) >= 2 && r.docFound !== 1) return { class: 'D', reason: 'a multi-hop question whose gold documents were not all found' };
  if (mod.includes('image')) return { class: 'C', reason: 'the gold sits in an image' };
  if (mod.includes('table')) return { class: 'B', reason: 'the gold sits in a table' };
  if (r.answerVisible === 1) return { class: 'A', reason: 'the answer text was in the material but another value was reported' };
  return { class: 'G', reason: 'no rule applies' };
};

/** Rule-based reviewer (offline): an independent reading of the usage counters; agrees when they support the class. */
export const ruleReviewer: ReviewerStage = async (rec, proposed) => {
  const c = rec.counters ?? {};
  const mod = modalityOf(rec);
  const reads = c.reads ?? 0;
  if (proposed === 'C' && reads > 0 && !mod.includes('image')) return { class: 'A', reason: 'media were read and the gold is not in an image' };
  if (proposed === 'D' && (c.bridgeSearches ?? 0) === 0 && hopsOf(rec) >= 2) return { class: 'D', reason: 'no bridge search ran for a multi-hop question' };
  if (proposed === 'A' && mod.includes('image') && reads === 0) return { class: 'C', reason: 'the gold is in an image and nothing was read' };
  if (proposed === 'G' && hopsOf(rec) >= 2) return { class: 'D', reason: 'a multi-hop question: assembly is the likelier cause' };
  return { class: proposed, reason: 'the counters are consistent with the first class' };
};

function vars(rec: RunRecord): Record<string, string> {
  return {
    question: rec.question,
    gold: Array.isArray(rec.gold) ? JSON.stringify(rec.gold) : String(rec.gold ?? ''),
    prediction: rec.finalAnswer ?? '(no answer)',
    facts: failureFacts(rec),
  };
}

async function ask(model: ChatModel, prompt: string, rec: RunRecord): Promise<Record<string, unknown>> {
  const res = await model.chat({
    stage: 'judge',
    messages: [{ role: 'user', content: prompt }],
    temperature: 0,
    maxTokens: 256,
    json: true,
    questionId: rec.id,
  });
  return findJsonObject(res.text, (v) => 'class' in v)?.value ?? {};
}

/** The classifier stage over a model endpoint. */
export function modelClassifier(model: ChatModel): ClassifierStage {
  return async (rec) => {
    const v = await ask(model, fillPrompt('error-classifier', vars(rec)), rec);
    return { class: letter(v.class), reason: String(v.reason ?? '') };
  };
}

/** The reviewer stage over a model endpoint (it may keep or replace the class). */
export function modelReviewer(model: ChatModel): ReviewerStage {
  return async (rec, proposed) => {
    const v = await ask(model, fillPrompt('error-reviewer', { ...vars(rec), proposed: `${proposed} (${ATTRIBUTION_CLASSES[proposed] ?? ''})` }), rec);
    return { class: v.agree === true ? proposed : letter(v.class), reason: String(v.reason ?? '') };
  };
}

/** Both stages over the failures, in order. */
export async function attributeErrors(records: readonly RunRecord[], stages: { classify: ClassifierStage; review: ReviewerStage }): Promise<Attribution[]> {
  const out: Attribution[] = [];
  for (const rec of records) {
    const first = await stages.classify(rec);
    const second = await stages.review(rec, first.class);
    out.push({
      id: rec.id,
      classifier: first.class,
      reviewer: second.class,
      agree: first.class === second.class,
      classifierReason: first.reason,
      reviewerReason: second.reason,
    });
  }
  return out;
}

/** Agreement of the two stages: raw share and Cohen's kappa (chance agreement from each stage's class shares). */
export function attributionAgreement(rows: readonly Attribution[]): { n: number; agreed: number; share: number | null; kappa: number | null } {
  const n = rows.length;
  if (!n) return { n, agreed: 0, share: null, kappa: null };
  const agreed = rows.filter((r) => r.agree).length;
  const po = agreed / n;
  let pe = 0;
  for (const k of Object.keys(ATTRIBUTION_CLASSES))
    pe += (rows.filter((r) => r.classifier === k).length / n) * (rows.filter((r) => r.reviewer === k).length / n);
  return { n, agreed, share: po, kappa: pe >= 1 ? null : (po - pe) / (1 - pe) };
}
