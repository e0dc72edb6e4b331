/**
 * The KnowForge roles' offline handlers: which policy answers which role, and
 * the task fields each cannot do without. Registered by the plug-in manifests (lib/pipeline/plugins.ts).
 */
import { sharedOcr } from '../../corpus/offline/ocr-service';
import type { OfflineHandler } from '../../model-api/handler';
import { agentStep, readerPlan } from './agent-policies';
import { checkerReply, scorerReply } from './checker';
import { bridgeJudge } from './bridge-judge';
import { offTopicBlocks } from './judge-drop';
import { locatorReply, mediaReadsFromResults } from './locator';
import { synthReply } from './synth';
import type { AgentTask, CheckerTask, JudgeTask, LocatorTask, ReaderTask, ScorerTask, SynthTask, VisionTask } from './tasks';
import { visionReply } from './vision';

const taskFile = 'lib/knowforge/offline/tasks.ts';

// The Locator reformulates from its own results (entities and titles found become queries): ./locator.ts.
const locator: OfflineHandler<LocatorTask> = { needs: ['question'], taskFile, reply: (task, { req }) => locatorReply(req, task) };
const reader: OfflineHandler<ReaderTask> = { needs: ['question'], taskFile, reply: (task, { req }) => agentStep(req, readerPlan(task)) };
/** P0: one agent with every tool: the locator's queries, then the reader's reads. */
const agent: OfflineHandler<AgentTask> = {
  stages: ['p0'],
  needs: ['question'],
  taskFile,
  reply: (task, { req }) => locatorReply(req, task, mediaReadsFromResults(req, task)),
};
// Next-hop names of the first-hop documents in the pool, else entity coverage: ./bridge-judge.ts.
const judgeHandler: OfflineHandler<JudgeTask> = {
  stages: ['bridge'],
  needs: ['question'],
  taskFile,
  reply: (task) => JSON.stringify(task.mayDrop ? { ...bridgeJudge(task), drop: offTopicBlocks(task.question, task.pool ?? '') } : bridgeJudge(task)),
};
const vision: OfflineHandler<VisionTask> = { needs: ['question'], taskFile, reply: (task, { resources }) => visionReply(task, sharedOcr(resources)) };
const synth: OfflineHandler<SynthTask> = { needs: ['question', 'materials'], taskFile, reply: (task) => synthReply(task) };
const checker: OfflineHandler<CheckerTask> = { needs: ['question', 'answer'], taskFile, reply: (task) => checkerReply(task) };
const scorer: OfflineHandler<ScorerTask> = { needs: ['response'], taskFile, reply: (task) => scorerReply(task) };

/** Role name -> handler, in the order the roles run in a question. */
export const KNOWFORGE_OFFLINE_HANDLERS: Record<string, OfflineHandler<never>> = {
  locator,
  judge: judgeHandler,
  reader,
  agent,
  vision,
  synth,
  checker,
  scorer,
};
