/**
 * Document scores (spec "Document scores"): the macro scores split into the
 * text/table score t_d and the visual score i_d (documents whose micro facts
 * come from images), each min-max normalised; for documents hit by micro
 * constraints i*_d = alpha x i_d + beta x s_micro(d), then renormalised;
 * otherwise i*_d = decay x i_d; s_final(d) = max(t_d, i*_d).
 *
 * ScienceQA's rule (paper, Appendix C.1: its candidates are a pre-aligned text snippet with an optional image,
 * no cross-modal fusion is needed): s_final(d) = macro(d), min-max normalised, + s_micro(d) (`sumScores`,
 * retriever setting fusionRule = "sum").
 */

export interface FusionSettings {
  alpha: number;
  beta: number;
  decay: number;
}

export const FUSION_DEFAULTS: FusionSettings = { alpha: 0.1, beta: 0.9, decay: 0.25 };

/** How macro and micro scores become s_final: the max fusion (eq. 9) or ScienceQA's sum (Appendix C.1). */
export const FUSION_RULES = ['max', 'sum'] as const;
export type FusionRule = (typeof FUSION_RULES)[number];

function minMax(m: Map<number, number>): Map<number, number> {
  if (!m.size) return m;
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of m.values()) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  const out = new Map<number, number>();
  for (const [k, v] of m) out.set(k, hi > lo ? (v - lo) / (hi - lo) : 1);
  return out;
}

export function fuseScores(
  macro: Map<number, number>,
  visualDocs: Set<number>,
  sMicro: Map<number, number>,
  s: FusionSettings = FUSION_DEFAULTS,
): Map<number, number> {
  const text = new Map<number, number>();
  const visual = new Map<number, number>();
  for (const [d, v] of macro) (visualDocs.has(d) ? visual : text).set(d, v);
  const t = minMax(text);
  const i = minMax(visual);
  const hit = new Map<number, number>();
  for (const [d, sm] of sMicro) hit.set(d, s.alpha * (i.get(d) ?? 0) + s.beta * sm);
  const iStar = minMax(hit);
  for (const [d, v] of i) if (!hit.has(d)) iStar.set(d, s.decay * v);
  const out = new Map<number, number>();
  for (const [d, v] of t) out.set(d, v);
  for (const [d, v] of iStar) out.set(d, Math.max(out.get(d) ?? 0, v));
  return out;
}

/** ScienceQA's additive ranking: the min-max normalised macro score plus the micro score, every document either reached. */
export function sumScores(macro: Map<number, number>, sMicro: Map<number, number>): Map<number, number> {
  const out = new Map(minMax(macro));
  for (const [d, sm] of sMicro) out.set(d, (out.get(d) ?? 0) + sm);
  return out;
}
