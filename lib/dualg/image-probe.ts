/**
 * Before a DualG row that sends images spends its budget: does the synth endpoint take an image part? One tiny
 * probe per endpoint and process (a 1x1 PNG with a one-line question, prompts/dualg-image-probe.txt), its
 * verdict kept by the endpoint's model id. An endpoint that answers it accepts images; one that refuses it as a
 * bad request (HTTP 400-422: no image input, unknown content type) is text-only, and the row is refused naming
 * the stage to route to a vision-capable model. Other failures (the endpoint down, rate limits) are not verdicts:
 * they fail as model calls do and the next question probes again. The offline backend looks at no image and
 * says so in every record; it is never probed.
 */
import type { ChatModel } from '../model-api/types';
import { KfError } from '../util/errors';
import { loadPrompt } from '../util/prompts';

/** A 1x1 PNG (one red pixel): the smallest image part there is. */
const ONE_PIXEL_PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const verdicts = new Map<string, Promise<void>>();

/** A model call error that says the request itself was refused (duck-typed: lib/models' ModelCallError). */
function refusedRequest(e: unknown): boolean {
  const status = (e as { lastStatus?: unknown }).lastStatus;
  return typeof status === 'number' && status >= 400 && status <= 422 && status !== 401 && status !== 403 && status !== 408;
}

async function probe(model: ChatModel): Promise<void> {
  try {
    await model.chat({
      stage: 'synth',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: loadPrompt('dualg-image-probe') },
            { type: 'image', dataUrl: ONE_PIXEL_PNG, mime: 'image/png' },
          ],
        },
      ],
      temperature: 0,
      maxTokens: 8,
      questionId: 'dualg-image-probe',
    });
  } catch (e) {
    if (!refusedRequest(e)) throw e;
    throw new KfError(
      'model_no_vision',
      `the synth stage's model ${model.id} refused a request with one image part (${(e as Error).message.slice(0, 200)}); this DualG row sends up to k_v raw images to it`,
      'route models.stages.synth to a vision-capable model, or run the row with generator = "text" or maxImages = 0 (both send no image)',
      { concerns: 'synth' },
    );
  }
}

/** Resolves when the synth model takes image parts (probed once per model id); refuses a text-only one. */
export function ensureImageInput(model: ChatModel): Promise<void> {
  if (model.backend === 'offline') return Promise.resolve();
  let v = verdicts.get(model.id);
  if (!v) {
    v = probe(model);
    // Only a verdict is kept: a failure that is no verdict (endpoint down) is probed again by the next question.
    v.catch((e: unknown) => {
      if ((e as { code?: string }).code !== 'model_no_vision') verdicts.delete(model.id);
    });
    verdicts.set(model.id, v);
  }
  return v;
}

/** Tests: forget the verdicts. */
export function clearImageProbes(): void {
  verdicts.clear();
}
