/** Small helpers shared by the build steps: models per stage, usage counting, seeds, cancellation. */
import type { ChatModel } from '../model-api/types';
import { KfError, errorMessage } from '../util/errors';
import { sha256 } from '../util/hash';
import { addUsage, emptyUsage, type StageUsage } from './knowledge-points';
import type { IndexModels, StageBackend } from './open';

// ---------------------------------------------------------------------------- helpers

export function usageOf(u?: Partial<StageUsage>): StageUsage {
  return { ...emptyUsage(), ...(u ?? {}) };
}

export function isOffline(m: ChatModel | undefined): boolean {
  return !m || m.backend === 'offline';
}

export function stageModel(models: IndexModels | undefined, stage: string): ChatModel | undefined {
  if (!models) return undefined;
  try {
    return models.forStage(stage);
  } catch (e) {
    throw new KfError('index_models', `cannot get the model for stage ${stage}: ${errorMessage(e)}`, 'fix the models config for that stage, or build offline', {
      concerns: stage,
      cause: e,
    });
  }
}

/** A ChatModel that adds the usage of every reply to `usage` (per-document token ledger). */
export function countingModel(m: ChatModel, usage: StageUsage): ChatModel {
  return {
    id: m.id,
    backend: m.backend,
    chat: async (req, signal) => {
      const r = await m.chat(req, signal);
      addUsage(usage, r);
      return r;
    },
  };
}

export function backendOf(m: ChatModel | undefined): StageBackend {
  return m ? { backend: m.backend, model: m.id } : { backend: 'offline', model: 'offline' };
}

export function numericSeed(seed: string): number {
  return Number.parseInt(sha256(`hnsw/${seed}`).slice(0, 8), 16) % 1_000_000_007;
}

export function abortIf(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new KfError('aborted', 'the index build was cancelled', 'rerun the build: finished documents are kept and reused');
}
