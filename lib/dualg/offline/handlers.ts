/**
 * The DualG-MRAG roles' offline handlers (OpenIE and image micro facts for graph
 * construction, the query-pattern parser). Registered by the plug-in manifests (lib/pipeline/plugins.ts).
 */
import type { OfflineHandler } from '../../model-api/handler';
import { openIE } from './openie';
import { parsePattern } from './pattern';
import { chooseReply, complexityVerdict } from './generator-rules';
import type { ChooseTask, ComplexityTask, MicroVisionTask, OpenIETask, PatternTask } from './tasks';
import { microVisionFacts } from './vision-facts';

const taskFile = 'lib/dualg/offline/tasks.ts';

const openie: OfflineHandler<OpenIETask> = { needs: ['text'], taskFile, reply: (task) => JSON.stringify(openIE(task)) };
const microVision: OfflineHandler<MicroVisionTask> = { needs: ['fragmentId', 'docTitle'], taskFile, reply: (task) => JSON.stringify(microVisionFacts(task)) };
const pattern: OfflineHandler<PatternTask> = { needs: ['question'], taskFile, reply: (task) => JSON.stringify(parsePattern(task)) };

const complexity: OfflineHandler<ComplexityTask> = { needs: ['question'], taskFile, reply: (task) => complexityVerdict(task) };
const choose: OfflineHandler<ChooseTask> = { needs: ['question', 'options', 'candidates'], taskFile, reply: (task) => chooseReply(task) };

export const DUALG_OFFLINE_HANDLERS: Record<string, OfflineHandler<never>> = {
  openie,
  pattern,
  'micro-vision': microVision,
  'dualg-complexity': complexity,
  'dualg-choose': choose,
};
