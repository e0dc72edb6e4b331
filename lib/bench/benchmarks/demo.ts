/**
 * The generated demo world (lib/demo): questions already in our Question shape,
 * a folder of documents; EM/F1, and unanswerable questions score 1 when refused.
 * The demo presets (tiny, default, scale) are one world each: `demoPresetOverrides`
 * is the one place that points an experiment at a preset's world and index.
 */
import * as path from 'node:path';
import { emF1Scores } from '../../eval/metrics/benchmark-scores';
import { stateDir, demoDataDir } from '../../util/paths';
import { loadDemo, type DemoPaths } from '../demo';
import type { BenchmarkSpec } from '../spec';
import { existing } from './paths';

/** The index folder of a demo preset (shared by the demo command, experiments and notebooks). */
export function demoIndexDir(preset: string, indexRoot = stateDir('index')): string {
  return path.join(indexRoot, `demo-${preset}`);
}

export interface DemoPresetSetup {
  questions: string;
  corpus: string;
  indexDir: string;
  /** `key=value` experiment overrides that point the demo experiments at this world and index. */
  overrides: string[];
}

/** Overrides that point a demo experiment at a preset's world (its folder) and index (default: .kf-cache/index/demo-<preset>). */
export function demoPresetOverrides(preset: string, worldDir: string, opts: { indexDir?: string } = {}): DemoPresetSetup {
  const questions = path.join(worldDir, 'questions.json');
  const corpus = path.join(worldDir, 'corpus');
  const indexDir = opts.indexDir ?? demoIndexDir(preset);
  return { questions, corpus, indexDir, overrides: [`benchmark.paths.questions=${questions}`, `benchmark.paths.corpus=${corpus}`, `index.dir=${indexDir}`] };
}

export const DEMO: BenchmarkSpec<DemoPaths> = {
  name: 'demo',
  description: 'the generated demo world (lib/demo)',
  pathKeys: ['questions', 'corpus'],
  questionsKey: 'questions',
  corpusKey: 'corpus',
  nativeQuestions: true,
  // The default preset's world (lib/demo writes data/demo/<preset>/{questions.json,corpus/}).
  defaultPaths: () => ({
    questions: demoDataDir('default', 'questions.json'),
    corpus: existing(demoDataDir('default', 'corpus')),
  }),
  load: (paths) => loadDemo(paths),
  convention: 'generic',
  recallLevel: 'document',
  relationsScope: 'corpus',
  metrics: ['em', 'f1'],
  score: emF1Scores,
  buckets: ['modality', 'hops', 'format'],
  presetOverrides: (preset, worldDir, opts) => demoPresetOverrides(preset, worldDir, opts),
};
