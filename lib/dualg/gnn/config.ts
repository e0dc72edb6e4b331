/**
 * GNN retriever settings. The paper (GFM-RAG configs) uses 6 layers x 512; the
 * default here is 2 layers x 64 because training has to fit in ~20 minutes on 2
 * shared CPU cores (wasm backend) and retrieval in ~50 ms: cost grows with
 * L * |E_active| * d^2. GFM-RAG reports that two layers already carry most of the
 * gain; on the 2Wiki graph (37K entities, 348K directed edges) the bridge is one
 * hop (seed title -mentions-> bridge title entity -> its passage), a 2-hop active
 * subgraph has ~1.7K edges at the median while 3 hops reach hubs and hit a 20K
 * edge cap at the median (measured: 3 layers ~12x slower per query).
 */
import { KfError } from '../../util/errors';

export interface GnnConfig {
  /** Message-passing layers L (= hops the retriever can reason over). */
  layers: number;
  /** Hidden width d. */
  hidden: number;
  /** Dimension of GnnQuery.queryVector (Enc(q)). */
  inputDim: number;
  /** Relation vocabulary size of the graph the checkpoint is built for (inverse relations included). */
  numRelations: number;
  /** Cap on active-subgraph edges per query (hubs are expanded last): bounds latency and memory. */
  maxActiveEdges: number;
  /** Document ranker: top-k entities, each weighted by its probability times 1/df (GFM-RAG's idf-weighted ranker). */
  docTopK: number;
  /** Flow temperature tau_flow of path decoding. */
  flowTemperature: number;
  /** Initialisation seed. */
  seed: number;
}

export const DEFAULT_GNN_CONFIG: Omit<GnnConfig, 'inputDim' | 'numRelations'> = {
  layers: 2,
  hidden: 64,
  maxActiveEdges: 10000,
  docTopK: 20,
  flowTemperature: 1.0,
  seed: 1024,
};

export function gnnConfig(partial: Partial<GnnConfig> & { inputDim: number; numRelations: number }): GnnConfig {
  const c: GnnConfig = { ...DEFAULT_GNN_CONFIG, ...partial };
  const positiveInts: (keyof GnnConfig)[] = ['layers', 'hidden', 'inputDim', 'numRelations', 'maxActiveEdges', 'docTopK'];
  for (const k of positiveInts) {
    const v = c[k] as number;
    if (!Number.isInteger(v) || v < 1)
      throw new KfError('bad_option', `GNN setting ${k} must be a positive integer (got ${v})`, 'fix the GNN settings', { concerns: k });
  }
  if (!(c.flowTemperature > 0)) throw new KfError('bad_option', `GNN flowTemperature must be > 0 (got ${c.flowTemperature})`, 'use e.g. 1.0');
  return c;
}
