/**
 * Mention-to-entity linking through the `embedding` stage (retriever setting `linking = "stage"`): the paper
 * links the question's entity mentions to graph entities with a dense retriever. Here the mentions that no
 * exact graph name matched are embedded by the configured endpoint together with the graph's entity names,
 * and each links to its nearest names by cosine >= DENSE_LINK_MIN.
 *
 * DENSE_LINK_MIN = 0.8 is fixed a priori, not tuned: it is the paper's equivalence threshold tau, the
 * cosine at which the paper treats two names as one entity, so a mention links to a name exactly when the
 * equivalence step would have merged the two.
 *
 * The entity-name vectors are computed once per graph and embedding model, on the first query that needs
 * them, and stored as an artifact (name-vectors-artifact.ts) with their nearest-name index (name-index.ts:
 * an exact scan for small graphs, HNSW with an exact re-check above), so a later process opens them instead
 * of re-embedding; each query then costs one embedding call for its unmatched mentions and one search. The offline stand-in (`linking = "trigrams"`,
 * the default) is the character-trigram nearest-name index (graph/align.ts), labelled as such.
 */
import type { Embedder } from '../../model-api/types';
import { ArtifactStore } from '../../pipeline/artifact-store';
import { nameKey } from '../graph/names';
import { skipKey } from '../graph/extract-offline';
import type { GraphView } from './graph-view';
import type { Neighbour, NameIndex } from './name-index';
import { nameIndexFor } from './name-vectors-artifact';

export const DENSE_LINK_MIN = 0.8;

export type LinkingName = 'trigrams' | 'stage';

export type { Neighbour } from './name-index';

/** How unmatched mentions find their entities (the dense linker; without one, link.ts's trigram index): `label` goes into the system identity. */
export interface MentionLinker {
  readonly label: string;
  nearestOf(view: GraphView, mentions: string[], k: number): Promise<Map<string, Neighbour[]>>;
}

export const TRIGRAM_LINKING_LABEL = 'trigram name index (offline stand-in for the dense linker)';

/** The mentions linking must resolve by similarity: not an exact graph name, not a skipped word. */
export function unmatchedMentions(view: GraphView, mentions: string[]): string[] {
  return [...new Set(mentions)].filter((e) => {
    const key = nameKey(e);
    return key && !skipKey(key) && !view.g.aliases.has(key);
  });
}

/** The dense linker over the `embedding` stage's vectors (DENSE_LINK_MIN); `store`: where the name vectors are kept. */
export function denseLinker(embedder: Embedder, log?: (line: string) => void, store: ArtifactStore = new ArtifactStore()): MentionLinker {
  const indexes = new Map<string, Promise<NameIndex>>();
  const indexOf = (view: GraphView) => {
    const key = `${view.g.meta.source.fingerprint}|${view.g.entityNames.length}`;
    let ix = indexes.get(key);
    if (!ix) {
      ix = nameIndexFor(store, view, embedder, log);
      // A failed build (endpoint down) is not kept: the next query tries again.
      ix.catch(() => indexes.delete(key));
      indexes.set(key, ix);
    }
    return ix;
  };
  return {
    label: `embedding stage (${embedder.id}), cosine >= ${DENSE_LINK_MIN}`,
    async nearestOf(view, mentions, k) {
      const todo = unmatchedMentions(view, mentions);
      if (!todo.length) return new Map<string, Neighbour[]>();
      const [ix, qs] = await Promise.all([indexOf(view), embedder.embed(todo)]);
      const near = ix.nearest(qs, k, DENSE_LINK_MIN);
      return new Map(todo.map((e, i) => [e, near[i]]));
    },
  };
}
