/**
 * The `prompts` setting of the KnowForge families: which prompt pack a
 * configuration sends (own | knowforge-bench). Checked when the configuration
 * loads, so a pack that was never imported fails before the first question,
 * naming the import command. Each question then runs inside its pack and its
 * trace names the pack and the pack's sha256.
 */
import { z } from 'zod';
import type { PipelineContext } from '../../pipeline/types';
import { isKfError } from '../../util/errors';
import { withPromptPack, type PromptPackRef } from '../../util/prompts';
import { OWN_PACK, PACK_NAMES, resolvePromptPack } from './packs';

export const promptsSetting = z
  .string()
  .default(OWN_PACK)
  .superRefine((name, ctx) => {
    try {
      resolvePromptPack(name);
    } catch (e) {
      if (!isKfError(e)) throw e;
      ctx.addIssue({ code: 'custom', message: `${e.message}; ${e.hint}` });
    }
  })
  .describe(`prompt pack: ${PACK_NAMES.join(' | ')}`);

/** What records and manifests carry about the pack. */
export interface PromptPackStamp {
  name: string;
  sha256: string;
}

export function packStamp(pack: PromptPackRef): PromptPackStamp {
  return { name: pack.name, sha256: pack.sha256 };
}

/** Run one question of a pipeline inside its prompt pack, tracing which pack it was. */
export async function inPromptPack<T>(name: string, ctx: PipelineContext, fn: () => Promise<T>): Promise<T> {
  const pack = resolvePromptPack(name);
  ctx.trace({ kind: 'prompt-pack', ...packStamp(pack) });
  return withPromptPack(pack, fn);
}
