/**
 * The hit a fake hybrid search of the DualG query tests gives a fragment at position i of its list (rank i + 1,
 * score 1/(i + 1)): each test's fake chooses which fragments and in what order; the hit itself is the same.
 */
import type { Fragment } from '../../lib/corpus/types';
import type { SearchHit } from '../../lib/index/types';

export function hybridHit(f: Fragment, i: number): SearchHit {
  return {
    fragmentId: f.id,
    docId: f.docId,
    kind: f.kind,
    rank: i + 1,
    score: 1 / (i + 1),
    scores: {},
    via: 'hybrid',
    text: f.text,
    page: f.page,
    section: [],
    media: [],
  };
}
