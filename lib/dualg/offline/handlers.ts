/**
 * The DualG-MRAG roles' offline handlers (OpenIE for graph construction, the
 * query-pattern parser). Registered by lib/offline-backend.ts.
 */
import type { OfflineHandler } from '../../model-api/handler';
import { openIE } from './openie';
import { parsePattern } from './pattern';
import type { OpenIETask, PatternTask } from './tasks';

const taskFile = 'lib/dualg/offline/tasks.ts';

const openie: OfflineHandler<OpenIETask> = { needs: ['text'], taskFile, reply: (task) => JSON.stringify(openIE(task)) };
const pattern: OfflineHandler<PatternTask> = { needs: ['question'], taskFile, reply: (task) => JSON.stringify(parsePattern(task)) };

export const DUALG_OFFLINE_HANDLERS: Record<string, OfflineHandler<never>> = { openie, pattern };
