/**
 * The `openie` stage as a graph extractor: one call per text fragment with the
 * prompt prompts/dualg-openie.txt and the task payload the offline backend reads
 * (lib/dualg/offline/openie.ts answers with rule-based triples, labelled
 * offline by the model layer). Unparseable replies give no triples, never an error
 * that stops the build.
 */
import type { ChatModel } from '../../model-api/types';
import { parseJsonLoose } from '../../model-api/json-repair';
import { fillPrompt } from '../../util/prompts';
import type { OpenIeExtractor } from './build';

export const OPENIE_MAX_TRIPLES = 20;

function triplesOf(text: string): [string, string, string][] {
  const parsed = parseJsonLoose(text)?.value as { triples?: unknown } | undefined;
  const list = Array.isArray(parsed?.triples) ? parsed!.triples : [];
  return list.filter((t): t is [string, string, string] => Array.isArray(t) && t.length === 3 && t.every((x) => typeof x === 'string' && x.trim() !== ''));
}

export function openieFromModel(model: ChatModel, signal?: AbortSignal): OpenIeExtractor {
  return async (text, fragmentId) => {
    const prompt = fillPrompt('dualg-openie', { text: text.slice(0, 6000), max: String(OPENIE_MAX_TRIPLES) });
    const res = await model.chat(
      {
        stage: 'openie',
        messages: [{ role: 'user', content: prompt }],
        temperature: 0,
        json: true,
        task: { role: 'openie', text, fragmentId, maxTriples: OPENIE_MAX_TRIPLES },
      },
      signal,
    );
    return triplesOf(res.text).slice(0, OPENIE_MAX_TRIPLES);
  };
}
