/**
 * The corpus roles' offline handlers (captioning media for retrieval).
 * Registered by the plug-in manifests (lib/pipeline/plugins.ts).
 */
import type { OfflineHandler } from '../../model-api/handler';
import { captionReply } from './caption';
import { sharedOcr } from './ocr-service';
import type { CaptionTask } from './tasks';

const caption: OfflineHandler<CaptionTask> = {
  taskFile: 'lib/corpus/offline/tasks.ts',
  reply: (task, { resources }) => captionReply(task, sharedOcr(resources)),
};

export const CORPUS_OFFLINE_HANDLERS: Record<string, OfflineHandler<never>> = { caption };
