/**
 * DG2's scorer factory, loaded on first use (the GNN pulls in TensorFlow.js, which a run of the
 * heuristic scorer never needs). Apart from scorer.ts so the GNN may import the scorer's types
 * without an import circle.
 */
import type { GnnScorerFactory } from './scorer';

/** DG2's factory when lib/dualg/gnn exists and exports it; undefined otherwise. */
export function gnnScorerFactory(): GnnScorerFactory | undefined {
  try {
    const m = require('../gnn') as { createGnnScorer?: GnnScorerFactory };
    return typeof m.createGnnScorer === 'function' ? m.createGnnScorer : undefined;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err?.code === 'MODULE_NOT_FOUND' && String(err.message).split('\n')[0].includes('gnn')) return undefined;
    throw e;
  }
}
