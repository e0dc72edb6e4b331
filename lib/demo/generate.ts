/**
 * generateWorld: options -> the whole demo world in memory (entities, relations,
 * documents, fact locations, questions). Pure and deterministic: every random
 * choice comes from forks of one Rng seeded by `options.seed`, each stage on its
 * own fork, so changing the question count never changes a document.
 */
import { makeRng } from '../util/rng';
import { buildDocuments } from './document';
import { resolveDemoOptions } from './options';
import { buildQuestions } from './questions';
import { buildWorldModel, type WorldModel } from './world';
import type { DemoOptions, DemoWorld } from './types';

export interface PlannedWorld {
  world: DemoWorld;
  model: WorldModel;
}

/** The world; with `withFiller` false documents hold only their fact-bearing sections. */
export function planWorld(options: Partial<DemoOptions>, withFiller: boolean): PlannedWorld {
  const opts = resolveDemoOptions(options);
  const rng = makeRng(String(opts.seed));
  const model = buildWorldModel(opts, rng.fork('world'));
  const { docs, facts } = buildDocuments(model, opts, rng.fork('documents'), withFiller);
  const { questions, shortfall } = buildQuestions(model, docs, facts, opts.questions, rng.fork('questions'));
  return {
    model,
    world: { options: opts, entities: model.entities, relations: model.relations, docs, facts, questions, questionShortfall: shortfall },
  };
}

export function generateWorld(opts: DemoOptions | Partial<DemoOptions>): DemoWorld {
  return planWorld(opts, true).world;
}
