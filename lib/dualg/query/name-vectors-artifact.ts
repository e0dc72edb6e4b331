/**
 * Artifact kind 'dualg-name-vectors' (lib/pipeline/artifact-store.ts): the graph's entity-name vectors under one
 * embedding model, with their nearest-name index (name-index.ts), so the dense linker embeds a graph's names
 * once, not once per process. Inputs: the graph's source fingerprint, a hash of its entity names (graph
 * settings change the names) and the embedder's id. Built by code only (the dense linker, on the first query
 * that needs it); build args: `names`, `embedder`.
 */
import type { Embedder } from '../../model-api/types';
import type { ArtifactKind } from '../../pipeline/artifact';
import type { ArtifactStore } from '../../pipeline/artifact-store';
import { KfError } from '../../util/errors';
import { shortHash } from '../../util/hash';
import type { GraphView } from './graph-view';
import { NameIndex, unitRows } from './name-index';

export const NAME_VECTORS_KIND = 'dualg-name-vectors';
/** Names per embedding request while the vectors are built (the endpoint's own limits still apply). */
const NAME_BATCH = 256;

async function embedNames(names: string[], embedder: Embedder, log: (line: string) => void): Promise<NameIndex> {
  const vecs: Float32Array[] = [];
  for (let i = 0; i < names.length; i += NAME_BATCH) {
    vecs.push(...(await embedder.embed(names.slice(i, i + NAME_BATCH))));
    if ((i / NAME_BATCH) % 20 === 19) log(`dualg linking: embedded ${vecs.length}/${names.length} entity names`);
  }
  const dim = vecs[0]?.length ?? 0;
  const ix = NameIndex.build({ dim, rows: unitRows(vecs, dim) });
  if (ix.graph) log(`dualg linking: HNSW graph over ${ix.size} entity names built`);
  return ix;
}

export const nameVectorsKind: ArtifactKind<Record<string, never>, NameIndex> = {
  kind: NAME_VECTORS_KIND,
  version: 1,
  description: "DualG-MRAG dense linking: the graph's entity-name vectors under one embedding model, with their HNSW name index",
  settings: () => ({}),
  async build(ctx) {
    const names = ctx.args.names as string[] | undefined;
    const embedder = ctx.args.embedder as Embedder | undefined;
    if (!names || !embedder)
      throw new KfError(
        'bad_request',
        `${NAME_VECTORS_KIND} needs the entity names and the embedder (args.names, args.embedder)`,
        'it is built by the dense linker',
      );
    const ix = await embedNames(names, embedder, ctx.log);
    ix.save(ctx.dir);
    return { stats: { names: ix.size, dim: ix.dim, graph: !!ix.graph } };
  },
  async open(ref) {
    return NameIndex.load(ref.dir);
  },
};

/** The name index of `view` under `embedder`: opened from the store, built (names embedded) there first when absent. */
export async function nameIndexFor(store: ArtifactStore, view: GraphView, embedder: Embedder, log?: (line: string) => void): Promise<NameIndex> {
  const names = view.g.entityNames;
  const request = {
    inputs: { graph: view.g.meta.source.fingerprint, names: shortHash(names, 16), model: embedder.id },
    settings: {},
    args: { names, embedder },
  };
  await store.prepare(NAME_VECTORS_KIND, request, { log });
  return (await store.open<NameIndex>(NAME_VECTORS_KIND, request)).value;
}
