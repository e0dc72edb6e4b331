/**
 * Failed model descriptions of images and tables are errors counted per fragment, never a silently
 * half-offline index: the build fails when their share of the fragments the model was asked to
 * describe passes `maxDescribeFailureShare` (default 5%), and the index manifest lists which
 * fragments carry offline descriptions.
 */
import { KfError } from '../util/errors';

/** What is read of a processed document (structurally OkDoc of build-types.ts, without importing it: no import circle). */
interface OkDoc {
  id: string;
  work: { issues: readonly { code: string; message: string }[]; fragments: readonly { id: string; describedBy?: string }[] };
}

export const DEFAULT_MAX_DESCRIBE_FAILURE_SHARE = 0.05;

/** Which fragments carry which description (the manifest's `descriptions`). */
export interface DescriptionCounts {
  /** The caption stage's backend: 'model' when a VLM was configured, else 'offline'. */
  by: 'model' | 'offline';
  /** Fragments described by the model. */
  model: number;
  /** Fragments with the offline description (all of them with an offline caption stage). */
  offline: number;
  /** Ids of the fragments with an offline description although a model was configured (failures, undescribable media). */
  offlineFragments: string[];
  /** Model descriptions that failed (an error per fragment; the offline description stands in). */
  failed: number;
}

/** The describe_failed issues of the documents (one per fragment). */
function failuresOf(okDocs: readonly OkDoc[]): { doc: string; fragment: string; message: string }[] {
  return okDocs.flatMap((d) =>
    d.work.issues
      .filter((i) => i.code === 'describe_failed')
      .map((i) => ({ doc: d.id, fragment: /describing (\S+) failed/.exec(i.message)?.[1] ?? '?', message: i.message })),
  );
}

export function descriptionCounts(okDocs: readonly OkDoc[], byModel: boolean): DescriptionCounts {
  let model = 0;
  const offline: string[] = [];
  for (const d of okDocs)
    for (const f of d.work.fragments) {
      if (f.describedBy === 'vlm') model++;
      else if (f.describedBy === 'offline') offline.push(f.id);
    }
  return { by: byModel ? 'model' : 'offline', model, offline: offline.length, offlineFragments: byModel ? offline : [], failed: failuresOf(okDocs).length };
}

/**
 * Refuse a build whose failed descriptions pass the limit. `forget` drops the works of the documents
 * with a failure, so the next build asks the model again instead of reusing their offline descriptions.
 */
export function refuseFailedDescriptions(okDocs: readonly OkDoc[], o: { byModel: boolean; maxShare?: number; forget: (docs: Set<string>) => void }): void {
  if (!o.byModel) return;
  const failures = failuresOf(okDocs);
  if (!failures.length) return;
  const counts = descriptionCounts(okDocs, true);
  const asked = counts.model + failures.length;
  const limit = o.maxShare ?? DEFAULT_MAX_DESCRIBE_FAILURE_SHARE;
  if (failures.length / asked <= limit) return;
  o.forget(new Set(failures.map((f) => f.doc)));
  throw new KfError(
    'describe_failures',
    `${failures.length} of ${asked} model descriptions failed (${((100 * failures.length) / asked).toFixed(0)}%, more than options.maxDescribeFailureShare=${limit}); first: ${failures[0].message}`,
    'fix the caption endpoint (key, model, URL: kf models --check) and build again (the failed documents are asked again), or raise options.maxDescribeFailureShare to accept offline descriptions for them (listed in the index manifest)',
    { concerns: failures[0].doc },
  );
}
