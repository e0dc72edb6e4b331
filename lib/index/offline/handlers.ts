/**
 * The index-time roles' offline handlers (knowledge-point extraction, relation
 * typing). Registered by the plug-in manifests (lib/pipeline/plugins.ts).
 */
import type { OfflineHandler } from '../../model-api/handler';
import { extractPoints, typeRelations } from './knowledge-points';
import type { ExtractionTask, RelationsTask } from './tasks';

const taskFile = 'lib/index/offline/tasks.ts';

const extraction: OfflineHandler<ExtractionTask> = { needs: ['fragments'], taskFile, reply: (task) => JSON.stringify(extractPoints(task)) };
const relations: OfflineHandler<RelationsTask> = { needs: ['pairs'], taskFile, reply: (task) => JSON.stringify(typeRelations(task)) };

export const INDEX_OFFLINE_HANDLERS: Record<string, OfflineHandler<never>> = { extraction, relations };
