/**
 * The GNN preset of a `kf train gnn` run (gnn/preset.ts). 'cpu' (the default) trains what every earlier run
 * trained. 'paper' trains the paper's retriever: 6 x 512, no heuristic prior (so the hybrid-rank feature is not
 * read either), and Enc(q) from the embeddings stage -- every training, validation and dev query embedded by the
 * configured endpoint through the model layer, as the `gnn-checkpoint` artifact and the searcher embed them, each
 * distinct text once (embeddingCache). Explicit --layers / --hidden override the size; the run is then 'custom'.
 * The paper preset is refused before any data is read when no embedding endpoint is configured, and warned about
 * (not refused) when tfjs runs on anything but the GPU binding: it is meant for a GPU.
 */
import type { Embedder } from '../../model-api/types';
import type { ModelRouter } from '../../models/router';
import { KfError } from '../../util/errors';
import { GNN_PRESETS, type GnnPresetName } from '../gnn/preset';
import type { GnnConfig } from '../gnn/config';
import type { GnnQuery } from '../types';
import { embedQueries } from '../gnn/query-encoder';

/** The architecture settings a run trains with, from the preset and any explicit size. */
export interface RunArchitecture {
  preset: GnnPresetName;
  config: Pick<GnnConfig, 'layers' | 'hidden' | 'queryEncoder' | 'prior' | 'update' | 'projection'>;
  /** KG-completion epochs (the paper preset has none: KG triples have no text to embed). */
  pretrainEpochs: number;
}

/** Explicit values win over the preset's; absent ones are undefined. */
export function runArchitecture(preset: GnnPresetName, explicit: { layers?: number; hidden?: number; pretrainEpochs?: number }): RunArchitecture {
  const p = GNN_PRESETS[preset];
  if (preset === 'paper' && explicit.pretrainEpochs)
    throw new KfError(
      'bad_option',
      '--preset paper cannot KG-pretrain: its queries are read by the embeddings stage and KG triples have no text',
      'drop --pretrain-epochs (or set it to 0)',
      { concerns: 'pretrain-epochs' },
    );
  return {
    preset,
    config: {
      layers: explicit.layers ?? p.layers,
      hidden: explicit.hidden ?? p.hidden,
      queryEncoder: p.queryEncoder,
      prior: p.prior,
      update: p.update,
      projection: p.projection,
    },
    pretrainEpochs: explicit.pretrainEpochs ?? (preset === 'paper' ? 0 : 1),
  };
}

/** The embeddings stage of the router handed in (the command builds it from the environment), or a refusal naming what to set. */
export function trainingEmbedder(router: ModelRouter): { router: ModelRouter; embedder: Embedder } {
  const embedder = router.embedder();
  if (!embedder) {
    void router.close();
    throw new KfError(
      'models_required',
      'kf train gnn --preset paper reads every question through the embeddings stage, and no embedding endpoint is configured',
      'set KF_EMBED_BASE_URL (or OPENAI_BASE_URL) and KF_EMBED_MODEL (plus the key the endpoint needs, e.g. OPENAI_API_KEY), or use --preset cpu',
      { concerns: 'preset' },
    );
  }
  return { router, embedder };
}

/** The measured cost of the paper preset off the GPU (experiments/dualg/README.md, "GNN presets"). */
export const PAPER_CPU_COST = '~65 s per question-step measured for paper 6x512 on 2 shared CPU cores (wasm), about two weeks for the GFM-RAG schedule';

/** A warning when the paper-sized model runs on a backend other than the GPU binding; undefined on the GPU. */
export function backendWarning(backend: string, preset: GnnPresetName): string | undefined {
  if (preset !== 'paper' || backend === 'tensorflow-gpu') return undefined;
  return `warning: tfjs backend ${backend}, not tensorflow-gpu (KF_TF_BACKEND=tensorflow-gpu with @tensorflow/tfjs-node-gpu): ${PAPER_CPU_COST}`;
}

/** An embedder's texts embedded once each: repeats (a dev question scored by several rows) come from the cache. */
export interface EmbeddingCache {
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Distinct texts sent to the endpoint so far. */
  readonly sent: number;
}

export function embeddingCache(embedder: Embedder): EmbeddingCache {
  const vectors = new Map<string, Float32Array>();
  return {
    async embed(texts) {
      const todo = [...new Set(texts.filter((t) => !vectors.has(t)))];
      if (todo.length) (await embedder.embed(todo)).forEach((v, i) => vectors.set(todo[i], v));
      return texts.map((t) => vectors.get(t)!);
    },
    get sent() {
      return vectors.size;
    },
  };
}

/** Enc(q) of every query given, from the cache; returns the vectors' dimension. */
export async function embedRunQueries(queries: GnnQuery[], cache: EmbeddingCache): Promise<number> {
  return embedQueries(queries, (t) => cache.embed(t));
}

/** What the report records of the run's GNN (preset, size, query encoder, embedding model, tfjs backend). */
export function gnnRunIdentity(a: RunArchitecture, label: string, backend: string, embedder?: Embedder) {
  return {
    preset: label.split(' ')[0],
    asked: a.preset,
    label,
    layers: a.config.layers,
    hidden: a.config.hidden,
    queryEncoder: a.config.queryEncoder,
    embeddingModel: embedder?.id ?? null,
    prior: a.config.prior ? 'heuristic + hybrid rank (prior-conditioned)' : 'none: the hybrid-rank feature does not apply (no prior to read it)',
    tfBackend: backend,
  };
}

/** The GNN of a report's rows in one phrase (the per-corpus and pooled tables' headings). */
export function gnnRowLabel(id: ReturnType<typeof gnnRunIdentity>): string {
  const enc = id.embeddingModel ? `${id.queryEncoder} (${id.embeddingModel})` : id.queryEncoder;
  return `GNN ${id.label}, Enc(q) ${enc}, ${id.prior.startsWith('none') ? 'no prior' : 'prior-conditioned'}, tfjs ${id.tfBackend}`;
}
