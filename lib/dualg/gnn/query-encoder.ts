/**
 * Enc(q), the GNN's query input. 'hashed': the hashed bag of words of the whole
 * question (GnnQuery.queryVector, 64-d). 'hashed+glove' adds the mean GloVe vector
 * (100-d, the offline vectors of lib/index/embedders/glove-table.ts) of the words
 * outside the linked names (GnnQuery.relationText): hashing gives "mother" and
 * "son" unrelated codes, GloVe puts them close, so what the model learns about
 * one relation word carries to its neighbours with few training questions.
 * 'embeddings' (the paper's Enc(q)): the question's vector from the embeddings
 * stage, a sentence encoder behind /v1/embeddings (GnnQuery.queryEmbedding); its
 * dimension is the endpoint's, fixed when the checkpoint is built.
 */
import { normalize } from '../../util/vectors';
import { KfError } from '../../util/errors';
import { loadGloveSync } from '../../index/embedders/glove-table';
import type { GnnQuery } from '../types';

export type QueryEncoder = 'hashed' | 'hashed+glove' | 'embeddings';
export const HASHED_DIM = 64;
const GLOVE_DIM = 100;

/** Input size of an encoder; 'embeddings' needs the endpoint's dimension (`embeddingDim`). */
export function queryInputDim(encoder: QueryEncoder, embeddingDim?: number): number {
  if (encoder === 'embeddings') {
    if (!embeddingDim)
      throw new KfError(
        'bad_option',
        'the embeddings query encoder needs the embedding dimension',
        'embed one text with the embeddings stage first (Embedder.init)',
      );
    return embeddingDim;
  }
  return encoder === 'hashed' ? HASHED_DIM : HASHED_DIM + GLOVE_DIM;
}

/** The model input of one query for a model built with `config.queryEncoder`. */
export function encodeQuery(config: { queryEncoder: QueryEncoder }, q: GnnQuery): Float32Array {
  if ((config.queryEncoder ?? 'hashed') === 'hashed') return q.queryVector;
  if (config.queryEncoder === 'embeddings') {
    if (!q.queryEmbedding)
      throw new KfError(
        'gnn_query_embedding_missing',
        'this GNN checkpoint reads the question through the embeddings stage, and no question embedding was given',
        'configure the embedding endpoint the checkpoint was trained with (KF_EMBED_BASE_URL + KF_EMBEDDING_MODEL, or models.stages.embedding)',
      );
    return q.queryEmbedding;
  }
  const out = new Float32Array(HASHED_DIM + GLOVE_DIM);
  out.set(q.queryVector.subarray(0, HASHED_DIM));
  out.set(meanGlove(q.relationText ?? ''), HASHED_DIM);
  return out;
}

/** Unit-length mean of the GloVe vectors of a text's known words (zeros when none is known). */
function meanGlove(text: string): Float32Array {
  const glove = loadGloveSync();
  const v = new Float32Array(GLOVE_DIM);
  for (const w of text.toLowerCase().match(/[\p{L}]+/gu) ?? []) {
    const row = glove.index.get(w);
    if (row === undefined) continue;
    for (let i = 0; i < GLOVE_DIM; i++) v[i] += glove.vectors[row * glove.dim + i];
  }
  normalize(v);
  return v;
}

/**
 * Fill Enc(q) of the paper preset: every query's text embedded by the embeddings stage (batched), in place.
 * A query without text (KG-completion examples) cannot be encoded this way and is refused. Returns the dimension.
 */
export async function embedQueries(queries: GnnQuery[], embed: (texts: string[]) => Promise<Float32Array[]>): Promise<number> {
  const missing = queries.findIndex((q) => q.queryText === undefined);
  if (missing >= 0)
    throw new KfError(
      'gnn_query_text_missing',
      'a GNN training query has no text for the embeddings stage to encode (KG-completion examples have none)',
      'set pretrainEpochs = 0 with preset "paper"',
    );
  const vecs = queries.length ? await embed(queries.map((q) => q.queryText!)) : [];
  vecs.forEach((v, i) => (queries[i].queryEmbedding = v));
  return vecs[0]?.length ?? 0;
}
