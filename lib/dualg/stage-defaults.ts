/**
 * With an endpoint, DualG's model stages are the default: OpenIE triples through the `openie` stage,
 * equivalence edges, query-entity linking, cross-tier alignment C and micro candidates (dense top-K)
 * through the `embedding` stage, image micro facts through
 * the `vision` stage -- each one when its stage is routed to a model (the run's resolved routes: the
 * experiment's [models] table over the environment, as `kf models` prints them) and the experiment leaves the setting unset. Offline, the rules stay the
 * offline backend's. What still runs on rules is said (a departure from the paper, per question).
 */
import { resolveStage, type ModelsConfig } from '../models/config';

/** The DualG settings that choose between a model stage and the offline rules, with the stage each needs. */
const STAGE_SETTINGS = [
  { key: 'openie', stage: 'openie', model: 'stage', part: 'OpenIE triples' },
  { key: 'equivalence', stage: 'embedding', model: 'stage', part: 'equivalence edges' },
  { key: 'linking', stage: 'embedding', model: 'stage', part: 'entity linking' },
  { key: 'microImages', stage: 'vision', model: 'vision', part: 'image micro facts' },
  { key: 'alignment', stage: 'embedding', model: 'stage', part: 'cross-tier alignment' },
  { key: 'microCandidates', stage: 'embedding', model: 'stage', part: 'micro candidates' },
] as const;

/**
 * True when the stage is routed to a model: by the run's router when one is handed in, else by an experiment's
 * [models] table over `env` (the offline backend otherwise).
 */
function routed(stage: string, env: NodeJS.ProcessEnv, models: StageRoutes | ModelsConfig | undefined): boolean {
  if (models && 'backendOf' in models && typeof models.backendOf === 'function') return models.backendOf(stage) !== 'offline';
  const table = models as ModelsConfig | undefined;
  return resolveStage(stage, table ? { experiment: table } : {}, env).backend !== 'offline';
}

/** What the stage defaults read of the run's models: which backend serves a stage. */
export interface StageRoutes {
  backendOf?(stage: string): string;
}

/**
 * The settings with the model stages filled in where an endpoint serves them and the setting is unset,
 * and the parts that still run on the offline rules.
 */
export function withStageDefaults(
  settings: Readonly<Record<string, unknown>>,
  env: NodeJS.ProcessEnv = process.env,
  models?: StageRoutes | ModelsConfig,
): { settings: Record<string, unknown>; ruleParts: string[] } {
  const out: Record<string, unknown> = { ...settings };
  const ruleParts: string[] = [];
  for (const s of STAGE_SETTINGS) {
    if (out[s.key] === undefined && routed(s.stage, env, models)) out[s.key] = s.model;
    if (out[s.key] !== s.model) ruleParts.push(s.part);
  }
  return { settings: out, ruleParts };
}

/** The note a DualG search carries when parts ran on rules (the pipeline turns it into a departure). */
export const RULE_PARTS_NOTE = 'offline rules for: ';
