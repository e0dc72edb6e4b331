/**
 * The values of a question "field" used for buckets and stratified sampling.
 * Named fields follow each benchmark's own protocol (MMLongBench-Doc's
 * single/cross page, evidence source, answer format; ScienceQA's subject,
 * context, grade); any other name is a dotted path into the Question
 * (`type`, `doc`, `meta.docType`, `meta.level`), falling back to `meta.<name>`.
 * A field can have several values (a question with Table and Chart evidence
 * counts in both buckets); a missing field gives ['(none)'].
 */

import type { Question } from './types';

export const NONE = '(none)';

export const NAMED_FIELDS = ['modality', 'hops', 'type', 'page', 'format', 'source', 'subject', 'context', 'grade', 'benchmark', 'answerable'] as const;

export function questionFieldValues(q: Question, field: string): string[] {
  const m = q.meta ?? {};
  switch (field) {
    case 'modality':
      return orNone(q.modality);
    case 'hops':
      return q.hops === undefined ? [NONE] : [`${q.hops}-hop`];
    case 'type':
      return orNone(q.type);
    case 'page':
      return pageBuckets(q);
    case 'format':
      return orNone(m.answerFormat ?? q.format);
    case 'source':
      // MMLongBench-Doc: Text/Table/Chart/Figure/Layout; elsewhere the evidence modalities.
      return orNone(m.evidenceSources ?? [...new Set(q.evidence.map((e) => e.modality).filter(Boolean))]);
    case 'subject':
      return orNone(m.subjectCode);
    case 'context':
      return orNone(m.contextCodes);
    case 'grade':
      return orNone(m.gradeBand);
    case 'answerable':
      return [isUnanswerable(q) ? 'unanswerable' : 'answerable'];
    default:
      return orNone(lookup(q, field));
  }
}

export function isUnanswerable(q: Question): boolean {
  return q.format === 'unanswerable';
}

/**
 * Single/cross page. MMLongBench-Doc's official rule (show_results): single =
 * exactly one listed evidence page; cross = otherwise and answerable;
 * unanswerable = gold "Not answerable" (a question can be single and unanswerable).
 * Elsewhere: distinct gold pages (1 -> single, more -> cross).
 */
function pageBuckets(q: Question): string[] {
  const raw = q.meta?.evidencePagesRaw;
  const unans = isUnanswerable(q);
  if (Array.isArray(raw)) {
    const out: string[] = [];
    if (raw.length === 1) out.push('single-page');
    else if (!unans) out.push('cross-page');
    if (unans) out.push('unanswerable');
    return out.length ? out : [NONE];
  }
  const pages = new Set(q.goldPages ?? q.evidence.map((e) => e.page).filter((p) => p !== undefined));
  if (unans) return ['unanswerable'];
  if (pages.size === 1) return ['single-page'];
  if (pages.size > 1) return ['cross-page'];
  return [NONE];
}

function lookup(q: Question, field: string): unknown {
  const walk = (root: unknown, parts: string[]): unknown => {
    let cur = root;
    for (const p of parts) {
      if (cur === null || typeof cur !== 'object') return undefined;
      cur = (cur as Record<string, unknown>)[p];
    }
    return cur;
  };
  const parts = field.split('.');
  const direct = walk(q, parts);
  if (direct !== undefined) return direct;
  return walk(q.meta, parts);
}

function orNone(v: unknown): string[] {
  if (v === undefined || v === null || v === '') return [NONE];
  if (Array.isArray(v)) {
    const vals = [...new Set(v.filter((x) => x !== undefined && x !== null && x !== '').map(String))];
    return vals.length ? vals : [NONE];
  }
  if (typeof v === 'object') return [JSON.stringify(v)];
  return [String(v)];
}
