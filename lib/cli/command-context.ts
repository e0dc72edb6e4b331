/**
 * The context the CLI hands every command (CommandContext, lib/pipeline/command.ts): the one place
 * a command's models are built (createModelRouter), and closed after the command returns.
 */
import type { CommandContext } from '../pipeline/command';
import type { ModelRouter } from '../models/router';

/** A context for one command's run; `close` closes every router it handed out (closing twice is harmless). */
export function commandContext(): CommandContext & { close(): Promise<void> } {
  const routers: ModelRouter[] = [];
  return {
    models(config = {}, opts = {}) {
      // Loaded on first use: the router's cache needs a native addon (better-sqlite3), and commands that call
      // no model (kf doctor among them) must run where it does not load.
      const { createModelRouter } = require('../models/router') as typeof import('../models/router');
      const router = createModelRouter(config, opts);
      routers.push(router);
      return router;
    },
    async close() {
      await Promise.all(routers.splice(0).map((r) => r.close().catch(() => undefined)));
    },
  };
}
