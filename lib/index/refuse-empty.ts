/**
 * An index with no fragment is refused, at both ends:
 * - a build whose documents yield no fragment (every PDF corrupt, an empty
 *   folder, an empty passages file) fails before anything is saved, so CURRENT
 *   keeps naming the previous build (if any);
 * - opening an index whose live build holds no fragment (one written before this
 *   rule) fails too.
 * Why: every search of an empty index returns nothing, so every pipeline answers
 * "not answerable", which scores as a correct refusal on unanswerable questions:
 * a broken corpus would look like a result.
 */
import { KfError } from '../util/errors';

/** What the build saw, enough to say why nothing was indexed. */
export interface EmptyBuildFacts {
  corpusName: string;
  /** The corpus folder or passages file (absent for passages given in memory). */
  corpusPath?: string;
  scanned: number;
  /** id and reason of each document that failed or was skipped. */
  failures: { id: string; status: string; reason: string }[];
  /** The live build that stays current, if any. */
  previousGeneration?: string;
}

/** How many failure reasons the message quotes (the build report is not written for a refused build). */
const REASONS_SHOWN = 3;

/** Throws when the build would hold no fragment; `fragments`: fragments of the documents that succeeded. */
export function refuseEmptyBuild(fragments: number, facts: EmptyBuildFacts): void {
  if (fragments > 0) return;
  const where = `corpus "${facts.corpusName}"${facts.corpusPath ? ` (${facts.corpusPath})` : ''}`;
  const seen =
    facts.scanned === 0
      ? 'no document was found'
      : `${facts.scanned} document${facts.scanned === 1 ? '' : 's'} scanned, ${facts.failures.length} failed or skipped, none gave any text`;
  const reasons = facts.failures
    .slice(0, REASONS_SHOWN)
    .map((f) => `${f.id}: ${f.reason}`)
    .join('; ');
  const more = facts.failures.length > REASONS_SHOWN ? ` (and ${facts.failures.length - REASONS_SHOWN} more)` : '';
  const kept = facts.previousGeneration ? `the previous index (${facts.previousGeneration}) stays current` : 'no index was written';
  throw new KfError(
    'empty_index',
    `the index build of ${where} produced no fragment: ${seen}${reasons ? ` -- ${reasons}${more}` : ''}`,
    `${kept}; point --corpus at a folder of readable documents or a non-empty passages file (PDFs need a text layer or OCR)`,
    { concerns: facts.corpusPath ?? facts.corpusName },
  );
}

/** Throws when an opened index holds no fragment (an index built before empty builds were refused); `undefined`: not counted, accepted. */
export function refuseEmptyIndex(fragments: number | undefined, root: string, corpus: { name: string; path?: string }): void {
  if (fragments === undefined || fragments > 0) return;
  throw new KfError(
    'empty_index',
    `the index in ${root} (corpus "${corpus.name}"${corpus.path ? `, ${corpus.path}` : ''}) holds no fragment: every search would find nothing`,
    `rebuild it from a corpus with readable documents: kf index build --corpus <dir|passages.json> --out ${root}`,
    { concerns: root },
  );
}
