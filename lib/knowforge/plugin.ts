/**
 * KnowForge's plug-in manifest (issue 16): its pipeline families (one-shot S0..S4, the agents
 * M4..P1 and the L+R caps), their configuration rows and the offline policies of its roles.
 * Loaded by lib/pipeline/plugins.ts; nothing else in the harness names KnowForge's modules.
 */
import type { Plugin } from '../pipeline/plugin';
import { CONFIGURATIONS, FAMILIES } from './configurations';
import { KNOWFORGE_OFFLINE_HANDLERS } from './offline/handlers';

export const plugin: Plugin = {
  name: 'knowforge',
  description: 'KnowForge (Locate, Judge, Read): one-shot and agent configurations, offline role policies',
  families: FAMILIES,
  configurations: CONFIGURATIONS,
  offlineHandlers: KNOWFORGE_OFFLINE_HANDLERS,
};
