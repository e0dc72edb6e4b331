/**
 * The KnowForge configurations as DATA (spec "Configurations"): each row is a
 * name, a family and the settings that make it that configuration. A new
 * variant (another template, a top-k, an L+R cap) is a new row, not new code.
 * Experiments name a row in `pipeline.name` and may override its settings in
 * `pipeline.settings` (validated by the family's schema when the config loads).
 *
 * Families: FAMILIES below; rows: CONFIGURATIONS. lib/pipeline/registry.ts
 * calls `register()` on first lookup.
 */
import type { PipelineSpec } from '../pipeline/spec';
import type { Configuration } from '../pipeline/spec';
import { registerConfiguration, registerFamily } from '../pipeline/registry';
import { ONE_SHOT_FAMILY, oneShotFamily } from './one-shot';
import { agentFamily } from './agent-pipeline';
import { AGENT_CONFIGURATIONS } from './agent-configurations';

export const FAMILIES: PipelineSpec[] = [oneShotFamily as unknown as PipelineSpec, agentFamily as unknown as PipelineSpec];

export const CONFIGURATIONS: Configuration[] = [
  // One-shot baselines: (one search) -> typed pool -> one synthesizer call -> one checker call.
  { name: 'S0', family: ONE_SHOT_FAMILY, paper: 'knowforge', description: 'closed book (no retrieval)', settings: { mode: 'none', template: 'closed-book' } },
  { name: 'S1', family: ONE_SHOT_FAMILY, paper: 'knowforge', description: 'dense only, one shot', settings: { mode: 'dense', template: 'ours' } },
  { name: 'S3', family: ONE_SHOT_FAMILY, paper: 'knowforge', description: 'dense + BM25, one shot', settings: { mode: 'hybrid', template: 'ours' } },
  {
    name: 'S4v1',
    family: ONE_SHOT_FAMILY,
    paper: 'knowforge',
    description: 'dense + BM25 + graph, one shot, our prompt',
    settings: { mode: 'hybrid+graph', template: 'ours' },
  },
  {
    name: 'S4',
    family: ONE_SHOT_FAMILY,
    paper: 'knowforge',
    description: 'dense + BM25 + graph, one shot, M3DocRAG-style answer template',
    settings: { mode: 'hybrid+graph', template: 'm3docrag' },
  },
  // Agent configurations (M4, M5, M5OFF, M5VEC, M5S3, P0, P1, the L+R caps): lib/knowforge/agent-configurations.ts.
  ...AGENT_CONFIGURATIONS,
];

/** Register the families and rows (idempotent: the registry accepts the same objects again). */
export function register(): void {
  for (const f of FAMILIES) registerFamily(f);
  for (const c of CONFIGURATIONS) registerConfiguration(c);
}
