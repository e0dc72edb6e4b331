/**
 * DG2's scorer factory, loaded on first use (the GNN pulls in TensorFlow.js, which a run of the
 * heuristic scorer never needs). Apart from scorer.ts so the GNN may import the scorer's types
 * without an import circle.
 */
import type { GnnScorerFactory } from './scorer';

/** DG2's factory (lib/dualg/gnn/index.ts), loaded on first use; a broken GNN module fails here, naming itself. */
export function gnnScorerFactory(): GnnScorerFactory | undefined {
  const m = require('../gnn') as { createGnnScorer?: GnnScorerFactory };
  return typeof m.createGnnScorer === 'function' ? m.createGnnScorer : undefined;
}
