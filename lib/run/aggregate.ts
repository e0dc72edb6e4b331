/**
 * Small aggregations shared by the runner (manifest totals) and the result
 * readers (summaries): usage totals, percentiles, backend labels. Kept apart
 * so that reading results never loads the runner's model/index machinery.
 */
import type { LedgerTotals } from '../models/ledger';

export function emptyTotals(): LedgerTotals {
  return { calls: 0, cacheHits: 0, errors: 0, attempts: 0, promptTokens: 0, completionTokens: 0, latencyMs: 0, costUsd: 0, unpricedModels: [] };
}

/** Add usage totals into `into` (mutates and returns it). */
export function addTotals(into: LedgerTotals, t: Partial<LedgerTotals> | undefined): LedgerTotals {
  if (!t) return into;
  into.calls += t.calls ?? 0;
  into.cacheHits += t.cacheHits ?? 0;
  into.errors += t.errors ?? 0;
  into.attempts += t.attempts ?? 0;
  into.promptTokens += t.promptTokens ?? 0;
  into.completionTokens += t.completionTokens ?? 0;
  into.latencyMs += t.latencyMs ?? 0;
  into.costUsd = Math.round((into.costUsd + (t.costUsd ?? 0)) * 1e8) / 1e8;
  for (const m of t.unpricedModels ?? []) if (!into.unpricedModels.includes(m)) into.unpricedModels.push(m);
  return into;
}

/** The harness's one percentile (lib/util/percentile.ts), re-exported for the run summaries and notebooks. */
export { percentile } from '../util/percentile';

/** Label of a set of backends: the one backend, 'mixed' for several, 'none' for no model call. */
export function backendLabel(backends: Iterable<string>): string {
  const all = [...backends];
  const set = new Set(all.filter((b) => b && b !== 'none' && b !== 'mixed'));
  if (all.includes('mixed') || set.size > 1) return 'mixed';
  return set.size ? [...set][0] : 'none';
}
