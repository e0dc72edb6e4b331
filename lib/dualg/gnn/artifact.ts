/**
 * Artifact kind 'gnn-checkpoint' (lib/pipeline/artifact-store.ts): a GNN trained
 * for the dualg-graph of one index. Inputs: the GnnGraph's content fingerprint
 * (a checkpoint is never opened for another graph). Build args: `indexDir`
 * (graph and passage texts) and optional `questions` ({id, question, goldDocs}[])
 * to fine-tune on besides the corpus's synthetic queries. The folder holds the
 * trainer's best/ and last/ checkpoints, so an interrupted build resumes.
 * Its queries are linked as the shipped `dualg` retriever links them on this index (its benchmark's k-fold choice,
 * bench-settings.ts; MuSiQue partialLink 0.5), so the prior it learns on is the one it is searched with.
 */
import type { SetupModels } from '../../pipeline/retriever-entry';
import path from 'node:path';
import type { ArtifactKind } from '../../pipeline/artifact';
import { registerArtifactKind } from '../../pipeline/artifact-store';
import { KfError } from '../../util/errors';
import { makeRng } from '../../util/rng';
import { graphFor } from '../graph-for';
import { sourceFromIndexDir } from '../graph/source';
import { toGnnGraph } from '../graph/to-gnn';
import { graphView } from '../query/graph-view';
import { kgCompletionExamples, questionExamples, syntheticLinkExamples } from '../train/corpus-data';
import { gnnGraphFingerprint } from '../train/fingerprint';
import { trainGnn } from '../train/trainer';
import { attachHybridEvidence, indexKnowledgeBase, kbHybridSearch } from '../train/hybrid-evidence';
import { checkpointExists } from '../train/checkpoint';
import { querySettings } from '../train/query-adapter';
import { benchChoice, withChoice } from '../bench-settings';
import { DEFAULT_GNN_CONFIG, gnnConfig } from './config';
import { GNN_PRESETS } from './preset';
import { embedQueries, queryInputDim } from './query-encoder';
import type { Embedder } from '../../model-api/types';
import { loadGnnModel } from './load';
import type { GnnModel } from './model';

export const GNN_CHECKPOINT_ARTIFACT = 'gnn-checkpoint';

export interface GnnTrainSettings {
  layers: number;
  hidden: number;
  seed: number;
  kg: number;
  synthetic: number;
  pretrainEpochs: number;
  epochs: number;
  learningRate: number;
  /** The named architecture, when one was asked for ('paper' also changes the query encoder and drops the prior). */
  preset?: 'cpu' | 'paper';
}

/**
 * KG pre-training is off: for the prior-conditioned model it moves the output layer off zero before any document
 * is seen (HotpotQA dev R@2 .875 -> .767). Fine-tuning keeps epoch 0 (= the heuristic) unless
 * an epoch beats it on the held-out synthetic queries.
 */
export const GNN_TRAIN_DEFAULTS: GnnTrainSettings = {
  layers: 2,
  hidden: 64,
  seed: 1024,
  kg: 320,
  synthetic: 576,
  pretrainEpochs: 0,
  epochs: 2,
  learningRate: 0.002,
};

/**
 * Setting `preset` names the architecture (gnn/preset.ts): 'cpu' is the default size; 'paper' is 6 x 512, no
 * heuristic prior, and the question read through the embeddings stage (every training query's text embedded
 * by the configured endpoint; the same endpoint embeds each question at search time). It needs the model
 * layer with an embedding endpoint, and no KG pre-training (its queries have no text).
 */
function presetSettings(name: unknown): Partial<GnnTrainSettings> {
  if (name === 'cpu') return { preset: 'cpu', layers: GNN_PRESETS.cpu.layers, hidden: GNN_PRESETS.cpu.hidden };
  if (name === 'paper') return { preset: 'paper', layers: GNN_PRESETS.paper.layers, hidden: GNN_PRESETS.paper.hidden };
  throw new KfError('bad_setting', `unknown GNN preset ${JSON.stringify(name)}`, 'use "cpu" or "paper" (gnn/preset.ts)', { concerns: 'preset' });
}

export function settings(raw: Record<string, unknown>): GnnTrainSettings {
  const { preset, ...rest } = raw;
  const out = { ...GNN_TRAIN_DEFAULTS, ...(preset === undefined ? {} : presetSettings(preset)) };
  for (const [k, v] of Object.entries(rest)) {
    if (!(k in out) || typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw new KfError('bad_setting', `gnn-checkpoint setting ${k} is unknown or not a non-negative number`, `known: ${Object.keys(out).join(', ')}`, {
        concerns: k,
      });
    }
    (out as unknown as Record<string, number>)[k] = v;
  }
  return out;
}

/** The embedder of the paper preset (the embeddings stage of the model layer), or a refusal naming what to configure. */
function presetEmbedder(s: GnnTrainSettings, models: unknown): Embedder | undefined {
  if (s.preset !== 'paper') return undefined;
  if (s.pretrainEpochs > 0)
    throw new KfError(
      'bad_setting',
      'GNN preset "paper" cannot KG-pretrain: its queries are read by the embeddings stage and KG triples have no text',
      'set pretrainEpochs = 0',
      {
        concerns: 'pretrainEpochs',
      },
    );
  const embedder = (models as { embedder?: () => Embedder | undefined } | undefined)?.embedder?.();
  if (!embedder)
    throw new KfError(
      'models_required',
      'GNN preset "paper" reads each question through the embeddings stage, and no embedding endpoint is configured',
      'configure one (KF_EMBED_BASE_URL + KF_EMBED_MODEL, or models.stages.embedding) and prepare through an experiment (kf prepare <experiment>)',
      { concerns: 'preset' },
    );
  return embedder;
}

async function build(ctx: Parameters<ArtifactKind<GnnTrainSettings>['build']>[0]): Promise<{ stats: Record<string, unknown> }> {
  const indexDir = ctx.args.indexDir as string | undefined;
  if (!indexDir)
    throw new KfError('bad_request', 'gnn-checkpoint needs the index folder (args.indexDir)', 'prepare it through the dualg retriever or pass --index');
  const s = ctx.settings;
  const embedder = presetEmbedder(s, ctx.args.models); // refused before any work when the paper preset has no endpoint
  const g = await graphFor({ indexDir, settings: {}, log: ctx.log, models: ctx.args.models as SetupModels | undefined }, { buildWithModels: true });
  const gg = toGnnGraph(g);
  const view = graphView(g);
  const source = sourceFromIndexDir(indexDir);
  const text = (d: number) =>
    source
      .fragmentsOf(g.docs[d].id)
      .map((f) => f.text)
      .join(' ');
  const rng = makeRng(s.seed);
  const query = querySettings({ settings: withChoice({}, benchChoice(indexDir, {})).settings });
  const syn = syntheticLinkExamples(g, view, text, rng.fork('syn'), s.synthetic, query);
  const nVal = Math.max(20, Math.round(syn.length * 0.1));
  const extra = questionExamples(g, view, (ctx.args.questions ?? []) as { id: string; question: string; goldDocs: string[] }[], query).examples;
  // The hybrid's ranking, the text evidence the prior-conditioned model reads at search time (train/hybrid-evidence.ts).
  if (!embedder) await attachHybridEvidence([...syn, ...extra], gg.docIds, kbHybridSearch(await indexKnowledgeBase(indexDir)));
  const dim = embedder
    ? await embedQueries(
        [...syn, ...extra].map((e) => e.query),
        (t) => embedder.embed(t),
      )
    : undefined;
  const r = await trainGnn({
    graph: gg,
    config: gnnConfig({
      inputDim: dim ?? queryInputDim(DEFAULT_GNN_CONFIG.queryEncoder),
      numRelations: gg.numRelations,
      layers: s.layers,
      hidden: s.hidden,
      seed: s.seed,
      ...(embedder ? { queryEncoder: 'embeddings' as const, prior: false } : {}),
      ...(s.preset === 'paper' ? { update: GNN_PRESETS.paper.update, projection: GNN_PRESETS.paper.projection } : {}),
    }),
    dir: ctx.dir,
    seed: s.seed,
    learningRate: s.learningRate,
    pretrain: { epochs: s.pretrainEpochs, examples: kgCompletionExamples(gg, rng.fork('kg'), s.kg) },
    finetune: { epochs: s.epochs, examples: [...syn.slice(nVal), ...extra], validation: syn.slice(0, nVal) },
    trainedOn:
      `the index's own graph: ${s.pretrainEpochs ? `${s.kg} KG-completion triples + ` : ''}${syn.length - nVal} synthetic link queries` +
      (extra.length ? ` + ${extra.length} given training questions` : '') +
      (embedder ? `, queries embedded by ${embedder.id}` : ''),
    log: ctx.log,
  });
  r.model.dispose();
  return { stats: { graphFingerprint: r.graphFingerprint, best: r.best, epochs: r.history.length, synthetic: syn.length, questions: extra.length } };
}

export const gnnCheckpointKind: ArtifactKind<GnnTrainSettings, GnnModel> = {
  kind: GNN_CHECKPOINT_ARTIFACT,
  // 2: the prior reads the hybrid retriever's rank (a third node feature); version-1 checkpoints are rebuilt.
  // 3: queries linked under the index's benchmark choice (MuSiQue's partial names); earlier ones are rebuilt.
  version: 3,
  description: 'DualG-MRAG GNN trained for one dualg-graph (KG completion + synthetic link queries [+ training questions])',
  settings,
  build,
  usesModels: (options) => options.preset === 'paper',
  /** `kf prepare gnn-checkpoint --set index=<index folder> [--set epochs=2 --set synthetic=576 ...]`. */
  async request(source) {
    const { index, ...rest } = source.options;
    if (!index)
      throw new KfError('bad_request', 'gnn-checkpoint needs the index whose graph it is trained for', 'kf prepare gnn-checkpoint --set index=<index folder>');
    const raw = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, k === 'preset' ? v : Number(v)]));
    const request = await gnnCheckpointRequest(path.resolve(index), raw, undefined, source.models as SetupModels | undefined);
    return { ...request, args: { ...request.args, models: source.models } };
  },
  async open(ref) {
    const dir = checkpointExists(path.join(ref.dir, 'best')) ? path.join(ref.dir, 'best') : path.join(ref.dir, 'last');
    return loadGnnModel(dir, ref.manifest.inputs.graph);
  },
};

/** The request for the checkpoint of an index's graph. */
export async function gnnCheckpointRequest(indexDir: string, raw: Record<string, unknown> = {}, questions?: unknown[], models?: SetupModels) {
  const g = await graphFor({ indexDir, settings: {}, models }, { buildWithModels: true });
  return { inputs: { graph: gnnGraphFingerprint(toGnnGraph(g)) }, settings: raw, args: { indexDir, ...(questions ? { questions } : {}) } };
}

let registered = false;
export function register(): void {
  if (registered) return;
  registered = true;
  registerArtifactKind(gnnCheckpointKind);
}
