/**
 * Presets and option validation for the demo world. The options (not the time or
 * the machine) fully determine the output, so their canonical hash names a
 * generated world on disk.
 */
import { KfError } from '../util/errors';
import { shortHash } from '../util/hash';
import type { DemoOptions, PresetName } from './types';

/** Bump when the generator's output changes for the same options (invalidates worlds on disk). */
export const DEMO_GENERATOR_VERSION = 1;

export const DEFAULT_SEED = 'kf-demo';

export const PRESETS: Record<PresetName, Omit<DemoOptions, 'preset'>> = {
  // Test fixture: every format, modality, hop count and answer format, in about a second.
  tiny: { seed: DEFAULT_SEED, documents: 24, distractors: 6, questions: 30, paragraphs: 2 },
  // The main job's world.
  default: { seed: DEFAULT_SEED, documents: 128, distractors: 32, questions: 150, paragraphs: 3 },
  // The paper's corpus-scale experiment: 3,368 documents, ~200K fragments.
  scale: { seed: DEFAULT_SEED, documents: 3368, distractors: 1000, questions: 2441, paragraphs: 54 },
};

export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

/** Smallest world that still has every entity type and a bridge chain. */
export const MIN_CORE_DOCUMENTS = 10;
export const MAX_DOCUMENTS = 50000;
export const MAX_PARAGRAPHS = 500;

export function isPresetName(s: string): s is PresetName {
  return (PRESET_NAMES as string[]).includes(s);
}

/** Fill missing options from the preset (default `default`) and validate. */
export function resolveDemoOptions(partial: Partial<DemoOptions> = {}): DemoOptions {
  const preset = partial.preset ?? 'default';
  if (!isPresetName(preset)) {
    throw new KfError('demo_bad_preset', `unknown demo preset "${preset}"`, `use one of ${PRESET_NAMES.join('|')}`, { concerns: String(preset) });
  }
  const base = PRESETS[preset];
  const documents = partial.documents ?? base.documents;
  // When only the document count changes, keep the preset's distractor share.
  const distractors = partial.distractors ?? (partial.documents !== undefined ? Math.round((documents * base.distractors) / base.documents) : base.distractors);
  const opts: DemoOptions = {
    preset,
    seed: partial.seed ?? base.seed,
    documents,
    distractors,
    questions: partial.questions ?? base.questions,
    paragraphs: partial.paragraphs ?? base.paragraphs,
  };
  validateDemoOptions(opts);
  return opts;
}

export function validateDemoOptions(o: DemoOptions): void {
  const bad = (what: string, hint: string) => {
    throw new KfError('demo_bad_option', `demo world option ${what}`, hint, { concerns: what.split(' ')[0] });
  };
  const isInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
  if (typeof o.seed !== 'string' && typeof o.seed !== 'number') bad(`seed must be a string or number, got ${typeof o.seed}`, 'pass --seed <text or number>');
  if (!isInt(o.documents) || o.documents < 1 || o.documents > MAX_DOCUMENTS)
    bad(`documents=${o.documents} is out of range`, `use an integer in 1..${MAX_DOCUMENTS}`);
  if (!isInt(o.distractors) || o.distractors < 0) bad(`distractors=${o.distractors} must be a non-negative integer`, 'pass --distractors 0 or more');
  if (o.documents - o.distractors < MIN_CORE_DOCUMENTS) {
    bad(
      `documents=${o.documents} with distractors=${o.distractors} leaves ${o.documents - o.distractors} core documents (need ${MIN_CORE_DOCUMENTS})`,
      `raise --documents or lower --distractors so that at least ${MIN_CORE_DOCUMENTS} documents are not distractors`,
    );
  }
  if (!isInt(o.questions) || o.questions < 0) bad(`questions=${o.questions} must be a non-negative integer`, 'pass --questions 0 or more');
  if (!isInt(o.paragraphs) || o.paragraphs < 0 || o.paragraphs > MAX_PARAGRAPHS)
    bad(`paragraphs=${o.paragraphs} is out of range`, `use an integer in 0..${MAX_PARAGRAPHS}`);
}

/** Hash of everything that determines the output (options + generator version). */
export function demoOptionsHash(o: DemoOptions): string {
  return shortHash({
    v: DEMO_GENERATOR_VERSION,
    seed: String(o.seed),
    documents: o.documents,
    distractors: o.distractors,
    questions: o.questions,
    paragraphs: o.paragraphs,
  });
}

/** True when the options are exactly the preset's (then the world lives in data/demo/<preset>). */
export function isPlainPreset(o: DemoOptions): boolean {
  const p = PRESETS[o.preset];
  return (
    String(p.seed) === String(o.seed) &&
    p.documents === o.documents &&
    p.distractors === o.distractors &&
    p.questions === o.questions &&
    p.paragraphs === o.paragraphs
  );
}
