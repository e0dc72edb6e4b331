/**
 * The index stage as a plug-in (issue 16): the kp-index artifact kind and the offline policies of
 * knowledge-point extraction and relation finding. Loaded by lib/pipeline/plugins.ts.
 */
import type { Plugin } from './plugin';
import { kpIndexKind } from './kp-index-artifact';
import { INDEX_OFFLINE_HANDLERS } from '../index/offline/handlers';

export const plugin: Plugin = {
  name: 'index',
  description: 'knowledge-point index: the kp-index artifact, offline extraction and relation policies',
  order: 20,
  artifactKinds: [kpIndexKind],
  offlineHandlers: INDEX_OFFLINE_HANDLERS,
};
