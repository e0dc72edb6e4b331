/**
 * The model of a stage as the agent roles want it: the router's ChatModel plus
 * the protocol its endpoint declares (models.stages.<stage>.protocol,
 * KF_PROTOCOL), so a configured native-tools endpoint is used natively.
 */
import type { AgentProtocol, ChatModel, Stage } from '../model-api/types';

export interface StageRouter {
  forStage(stage: Stage): ChatModel;
  endpoint?(stage: Stage): { protocol: AgentProtocol };
}

export function stageModel(router: StageRouter, stage: Stage, questionId?: string): ChatModel & { protocol?: AgentProtocol } {
  const m = router.forStage(stage);
  let protocol: AgentProtocol | undefined;
  try {
    protocol = router.endpoint?.(stage).protocol;
  } catch {
    protocol = undefined; // a stage without an endpoint of its own (offline): the default applies
  }
  return { id: m.id, backend: m.backend, protocol, chat: (req, signal) => m.chat({ ...req, questionId: req.questionId ?? questionId }, signal) };
}
