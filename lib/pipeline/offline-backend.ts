/**
 * The offline backend's installer: registers every plug-in's offline policies (the manifests'
 * `offlineHandlers`, lib/pipeline/plugins.ts) with the in-process chat model
 * (lib/models/in-process.ts). The model layer never imports the stages; the manifests name them.
 * Call `registerOfflineHandlers()` once before routing a stage to the offline backend (the CLI's
 * commands and the runner do); calling it again is harmless.
 */
import { registerOfflineHandler } from '../models/in-process';
import { loadedPlugins, onPlugin } from './plugins';

let installed = false;

export function registerOfflineHandlers(): void {
  if (!installed) {
    installed = true;
    onPlugin((p) => {
      for (const [role, handler] of Object.entries(p.offlineHandlers ?? {})) registerOfflineHandler(role, handler);
    });
  }
  loadedPlugins();
}
