/**
 * A third method, written against the harness's contract alone (issue 30, the proof): its pipeline
 * family and configuration row (T1), its retriever, its benchmark (loader and scorer), the offline policy of its one model role, its
 * prompt folder, its command, its trace line, its notebook series and notebook kit, its demo experiment
 * and one published number. Loaded through KF_PLUGINS by third-method.test.ts; no file outside this folder
 * names it.
 */
import * as path from 'node:path';
import type { OfflineHandler } from '../../lib/model-api/handler';
import type { CommandSpec } from '../../lib/pipeline/command';
import type { Plugin } from '../../lib/pipeline/plugin';
import type { PipelineSpec } from '../../lib/pipeline/spec';
import { thirdFamily } from './pipeline';
import { THIRD_RETRIEVER } from './retriever';
import { THIRD_BENCHMARK } from './benchmark';

/** What a notebook reaches as `kf.method('third')`, typed by name through the harness's MethodKits. */
export type ThirdKit = typeof import('./notebook-kit');

declare module '../../lib/pipeline/method-kit' {
  interface MethodKits {
    third: ThirdKit;
  }
}

/** This folder in the source tree (its prompts and experiments are not compiled into dist/). */
const SOURCE_DIR = __dirname.replace(`${path.sep}dist${path.sep}test${path.sep}`, `${path.sep}test${path.sep}`);

/** The offline policy of role 'third': the passage's first words as the answer (labelled offline wherever it goes). */
const third: OfflineHandler<{ question: string; passage: string }> = {
  needs: ['question', 'passage'],
  reply: (task) => {
    const words = task.passage.split(/\s+/).filter(Boolean).slice(0, 3).join(' ');
    return `The passage begins: ${words}.\nFINAL ANSWER: ${words || 'not answerable'}`;
  },
};

export const plugin: Plugin = {
  name: 'third',
  description: 'a third (toy) method: one search with its own retriever, one reading call',
  families: [thirdFamily as unknown as PipelineSpec],
  configurations: [{ name: 'T1', family: 'third', paper: 'third', description: 'third method, top 3', settings: { topk: 3 } }],
  retrievers: [THIRD_RETRIEVER],
  offlineHandlers: { third: third as unknown as OfflineHandler<never> },
  notebookSeries: [
    { topic: 'retrieval', names: ['third-overlap'] },
    { topic: 'qa', names: ['T1'], labels: { T1: 'third method' } },
  ],
  notebookKit: () => require('./notebook-kit') as ThirdKit,
  commands: [{ name: 'third hello', load: () => (require('./command') as { command: CommandSpec }).command }],
  trace: { lines: { 'third-read': (e, t) => `${t}third read ${e.fragment ?? 'nothing'} (of ${e.hits} hits)` } },
  promptsDir: path.join(SOURCE_DIR, 'prompts'),
  demoExperiments: path.join(SOURCE_DIR, 'experiments'),
  benchmarks: [THIRD_BENCHMARK],
  publishedNumbers: [{ paper: 'third', source: 'Table 1', system: 'T1', model: 'toy-model', benchmark: 'third-qa', metric: 'hit', value: 42.5 }],
};
