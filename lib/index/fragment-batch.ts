/**
 * The checks a batch of fragments passes before the engine changes anything
 * (so a bad batch leaves the index as it was). O(batch).
 */
import type { Fragment } from '../corpus/types';
import { KfError } from '../util/errors';

export function validateFragmentBatch(fragments: Fragment[], vectors: Float32Array[] | undefined): void {
  if (!Array.isArray(fragments)) throw new KfError('bad_input', 'addFragments expects an array of fragments', 'pass Fragment[]');
  if (vectors && vectors.length !== fragments.length) {
    throw new KfError(
      'bad_input',
      `addFragments got ${fragments.length} fragments but ${vectors.length} vectors`,
      'pass one vector per fragment, or none to embed them',
    );
  }
  const seen = new Set<string>();
  for (const f of fragments) {
    const where = f && typeof f.id === 'string' ? `fragment ${f.id}` : 'a fragment without an id';
    if (!f || typeof f.id !== 'string' || !f.id)
      throw new KfError('bad_fragment', `${where}: id must be a non-empty string`, 'fix the fragment producer (ids are `${docId}#${ordinal}`)');
    if (typeof f.docId !== 'string' || !f.docId)
      throw new KfError('bad_fragment', `${where}: docId must be a non-empty string`, 'fix the fragment producer', { concerns: f.id });
    if (typeof f.text !== 'string') throw new KfError('bad_fragment', `${where}: text must be a string`, 'fix the fragment producer', { concerns: f.id });
    if (seen.has(f.id))
      throw new KfError('duplicate_fragment', `fragment ${f.id} appears twice in one addFragments call`, 'deduplicate fragment ids (same input -> same id)', {
        concerns: f.id,
      });
    seen.add(f.id);
  }
}
