/** The corpus stage as a plug-in (issue 16): the offline caption policy. Loaded by lib/pipeline/plugins.ts. */
import type { Plugin } from './plugin';
import { CORPUS_OFFLINE_HANDLERS } from '../corpus/offline/handlers';

export const plugin: Plugin = {
  name: 'corpus',
  description: 'corpus ingestion: the offline caption policy',
  order: 40,
  offlineHandlers: CORPUS_OFFLINE_HANDLERS,
};
