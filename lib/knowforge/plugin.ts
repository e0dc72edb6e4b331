/**
 * KnowForge's plug-in manifest (issue 16): its pipeline families (one-shot S0..S4, the agents
 * M4..P1 and the L+R caps), their configuration rows, the offline policies of its roles, its notebook series
 * and notebook kit, its commands and its part of the printed trace. Loaded by lib/pipeline/plugins.ts; nothing else in the
 * harness names KnowForge's modules (checked by lint, .dependency-cruiser.cjs).
 */
import * as path from 'node:path';
import type { Plugin } from '../pipeline/plugin';
import { repoRoot } from '../util/paths';
import { CONFIGURATIONS, FAMILIES } from './configurations';
import { KNOWFORGE_OFFLINE_HANDLERS } from './offline/handlers';
import { KNOWFORGE_TRACE } from './trace-section';
import type { CommandSpec } from '../pipeline/command';

/** What notebooks reach as `kf.method('knowforge')` (loaded on first use: the reports pull the index and the runner). */
export type KnowForgeKit = typeof import('./reports/notebook-kit');

declare module '../pipeline/method-kit' {
  interface MethodKits {
    knowforge: KnowForgeKit;
  }
}

export const plugin: Plugin = {
  name: 'knowforge',
  description: 'KnowForge (Locate, Judge, Read): one-shot and agent configurations, offline role policies',
  order: 10,
  families: FAMILIES,
  configurations: CONFIGURATIONS,
  offlineHandlers: KNOWFORGE_OFFLINE_HANDLERS,
  notebookSeries: [
    // The main comparison (notebook 20): closed book, the one-shot baselines, the agents.
    { topic: 'qa', names: ['S0', 'S1', 'S3', 'S4v1', 'S4', 'M4', 'M5', 'M5OFF', 'P0', 'P1'] },
    // Its retrieval side (notebook 24): the one-shot rows that differ only in how they search;
    // the last searches with everything on and is the one the others are compared with.
    { topic: 'qa', set: 'index-factors', names: ['S1', 'S3', 'S4v1'] },
  ],
  notebookKit: () => require('./reports/notebook-kit') as KnowForgeKit,
  // kf prompts list / import (its prompt packs).
  commands: [
    { name: 'prompts', load: () => (require('./commands/prompts') as { commands: CommandSpec[] }).commands },
    { name: 'diff-runner', load: () => [(require('./commands/diff-runner') as { command: CommandSpec }).command] },
  ],
  trace: KNOWFORGE_TRACE,
  demoExperiments: path.join(repoRoot(), 'experiments', 'knowforge', 'demo'),
  promptsDir: path.join(repoRoot(), 'prompts', 'knowforge'),
};
