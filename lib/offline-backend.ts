/**
 * The offline backend's composition root: registers every stage's offline
 * policy with the in-process chat model (lib/models/in-process.ts). The model
 * layer never imports the stages; this file is the one place that knows them
 * all. Call `registerOfflineHandlers()` once before routing a stage to the
 * offline backend (the CLI's commands and the runner do); calling it again is
 * harmless. A new role registers here by adding its folder's handler table.
 */
import { CORPUS_OFFLINE_HANDLERS } from './corpus/offline/handlers';
import { DUALG_OFFLINE_HANDLERS } from './dualg/offline/handlers';
import { INDEX_OFFLINE_HANDLERS } from './index/offline/handlers';
import { KNOWFORGE_OFFLINE_HANDLERS } from './knowforge/offline/handlers';
import { registerOfflineHandler, type OfflineHandler } from './models/in-process';

/** Every role's handler, in the order `kf models` and error messages list them. */
export const OFFLINE_HANDLERS: Record<string, OfflineHandler<never>> = {
  ...KNOWFORGE_OFFLINE_HANDLERS,
  ...INDEX_OFFLINE_HANDLERS,
  ...DUALG_OFFLINE_HANDLERS,
  ...CORPUS_OFFLINE_HANDLERS,
};

export function registerOfflineHandlers(): void {
  for (const [role, handler] of Object.entries(OFFLINE_HANDLERS)) registerOfflineHandler(role, handler);
}
