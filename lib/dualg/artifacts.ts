/**
 * Artifact kind 'dualg-graph' (lib/pipeline/artifact-store.ts): the dual-tier
 * graph of one built index. Inputs: the index identity (input key +
 * generation), so a rebuilt index gets a new graph and a graph is never opened
 * for another index. Build args: `indexDir`. `kf prepare dualg-graph` and the
 * 'dualg' retriever (on first search) prepare it.
 */
import type { ArtifactKind } from '../pipeline/artifact';
import { registerArtifactKind } from '../pipeline/artifact-store';
import { KfError } from '../util/errors';
import type { ChatModel, Embedder } from '../model-api/types';
import type { NameEmbedder } from './graph/equivalence';
import { buildDualGraph, DUALG_GRAPH_VERSION, type OpenIeExtractor } from './graph/build';
import { openieFromModel } from './graph/openie-model';
import { visionFactsFromModel, writeVisionReport, type VisionFactSource } from './graph/micro-vision';
import { indexAssetResolver } from '../answer/vision';
import { indexIdentity, sourceFromIndexDir } from './graph/source';
import { DUALG_GRAPH_KIND, loadGraph, writeGraphFiles } from './graph/store';
import { withStageDefaults } from './stage-defaults';
import type { DualGraph } from './graph/types';

export interface DualGraphSettings {
  tau: number;
  /** 'rules': the built-in offline extraction only; 'stage': plus the `openie` stage of the model layer (needs models). */
  openie: 'rules' | 'stage';
  /** Image micro facts: 'ocr' (default; OCR tokens, chart labels, captions) or 'vision' (plus the `vision` stage's VLM facts). */
  microImages?: 'ocr' | 'vision';
  /** Equivalence edges: 'trigrams' (default; the offline stand-in) or 'stage' (name embeddings from the `embedding` stage, the paper's way). */
  equivalence?: 'trigrams' | 'stage';
  /** Cross-tier alignment C: 'trigrams' (default; the offline stand-in) or 'stage' (exact names, then the `embedding` stage's cosine >= 0.8, the paper's way). */
  alignment?: 'trigrams' | 'stage';
}

export function graphSettings(raw: Record<string, unknown>): DualGraphSettings {
  const tau = raw.tau === undefined ? 0.8 : Number(raw.tau);
  if (!Number.isFinite(tau) || tau <= 0 || tau > 1)
    throw new KfError('bad_setting', `dualg-graph tau must be in (0, 1], got ${String(raw.tau)}`, 'use e.g. tau = 0.8', { concerns: 'tau' });
  const openie = raw.openie ?? 'rules';
  if (openie !== 'rules' && openie !== 'stage')
    throw new KfError('bad_setting', `dualg-graph openie must be "rules" or "stage", got ${String(openie)}`, 'openie = "stage" calls the openie model stage', {
      concerns: 'openie',
    });
  const microImages = raw.microImages ?? 'ocr';
  if (microImages !== 'ocr' && microImages !== 'vision')
    throw new KfError(
      'bad_setting',
      `dualg-graph microImages must be "ocr" or "vision", got ${String(microImages)}`,
      'microImages = "vision" calls the vision stage',
      {
        concerns: 'microImages',
      },
    );
  const equivalence = raw.equivalence ?? 'trigrams';
  if (equivalence !== 'trigrams' && equivalence !== 'stage')
    throw new KfError(
      'bad_setting',
      `dualg-graph equivalence must be "trigrams" or "stage", got ${String(equivalence)}`,
      'equivalence = "stage" embeds names through the embedding stage',
      {
        concerns: 'equivalence',
      },
    );
  const alignment = raw.alignment ?? 'trigrams';
  if (alignment !== 'trigrams' && alignment !== 'stage')
    throw new KfError(
      'bad_setting',
      `dualg-graph alignment must be "trigrams" or "stage", got ${String(alignment)}`,
      'alignment = "stage" embeds names through the embedding stage',
      {
        concerns: 'alignment',
      },
    );
  // The defaults ('ocr', 'trigrams') are left out of the settings so the default graph keeps its artifact key.
  return {
    tau,
    openie,
    ...(microImages === 'vision' ? { microImages } : {}),
    ...(equivalence === 'stage' ? { equivalence } : {}),
    ...(alignment === 'stage' ? { alignment } : {}),
  };
}

/** The `vision` stage parser of image assets when the settings ask for it (files found through the index manifest). */
function stageVision(settings: DualGraphSettings, models: unknown, indexDir: string): VisionFactSource | undefined {
  if (settings.microImages !== 'vision') return undefined;
  const router = models as { forStage?: (stage: string) => ChatModel } | undefined;
  if (!router?.forStage)
    throw new KfError(
      'models_required',
      'dualg-graph with microImages = "vision" needs the model layer',
      'prepare it through an experiment (kf prepare <experiment>) or kf prepare dualg-graph --set microImages=vision',
    );
  return visionFactsFromModel(router.forStage('vision'), { assetPath: indexAssetResolver(indexDir) });
}

/** The `openie` stage extractor when the settings ask for it (the models come from kf prepare / the caller). */
function stageExtractor(settings: DualGraphSettings, models: unknown): OpenIeExtractor | undefined {
  if (settings.openie !== 'stage') return undefined;
  const router = models as { forStage?: (stage: string) => ChatModel } | undefined;
  if (!router?.forStage)
    throw new KfError(
      'models_required',
      'dualg-graph with openie = "stage" needs the model layer',
      'prepare it through an experiment (kf prepare <experiment>)',
    );
  return openieFromModel(router.forStage('openie'));
}

/** The `embedding` stage as a name embedder when setting `which` asks for it (an endpoint is required). */
function stageNames(settings: DualGraphSettings, models: unknown, which: 'equivalence' | 'alignment' = 'equivalence'): NameEmbedder | undefined {
  if (settings[which] !== 'stage') return undefined;
  const router = models as { embedder?: () => Embedder | undefined } | undefined;
  const embedder = router?.embedder?.();
  if (!embedder)
    throw new KfError(
      'models_required',
      `dualg-graph with ${which} = "stage" needs an embedding endpoint (the offline stand-in is ${which} = "trigrams")`,
      'configure one (KF_EMBED_BASE_URL + KF_EMBED_MODEL, or models.stages.embedding) and prepare through an experiment (kf prepare <experiment>)',
    );
  return (names) => embedder.embed(names);
}

export const dualgGraphKind: ArtifactKind<DualGraphSettings, DualGraph> = {
  kind: DUALG_GRAPH_KIND,
  version: DUALG_GRAPH_VERSION,
  description: 'DualG-MRAG dual-tier graph (macro entities/triples, micro facts, alignment) of one index',
  settings: graphSettings,
  async build(ctx) {
    const indexDir = ctx.args.indexDir as string | undefined;
    if (!indexDir)
      throw new KfError('bad_request', 'dualg-graph needs the index folder (args.indexDir)', 'prepare it through the dualg retriever or pass --index');
    const openie = stageExtractor(ctx.settings, ctx.args.models);
    const vision = stageVision(ctx.settings, ctx.args.models, indexDir);
    const embedNames = stageNames(ctx.settings, ctx.args.models);
    const alignNames = stageNames(ctx.settings, ctx.args.models, 'alignment');
    const g = await buildDualGraph(sourceFromIndexDir(indexDir), { tau: ctx.settings.tau, openie, vision, embedNames, alignNames, log: ctx.log });
    writeGraphFiles(ctx.dir, g);
    if (vision) writeVisionReport(ctx.dir, vision.report);
    return { stats: g.meta.stats };
  },
  usesModels: (options) => options.openie === 'stage' || options.microImages === 'vision' || options.equivalence === 'stage' || options.alignment === 'stage',
  /** `kf prepare dualg-graph --set index=DIR [--set tau=0.8]`, or an experiment's index (prepared first by kf prepare). */
  request(source) {
    const indexDir = source.options.index ?? source.indexDir;
    if (!indexDir) throw new KfError('bad_request', 'dualg-graph needs the index it is built from', 'kf prepare dualg-graph --set index=<index folder>');
    const settings: Record<string, unknown> = {};
    if (source.options.tau !== undefined) settings.tau = Number(source.options.tau);
    // The stage settings also come from the experiment's index.settings (what the dualg retrievers read), with an
    // endpoint's model stages as the default (stage-defaults.ts), so kf prepare <experiment> builds the graph the run opens.
    const fromExperiment = withStageDefaults(
      (source.experiment?.index?.settings ?? {}) as Record<string, unknown>,
      process.env,
      source.experiment?.models,
    ).settings;
    for (const key of ['openie', 'microImages', 'equivalence', 'alignment'] as const) {
      const value = source.options[key] ?? fromExperiment[key];
      if (value !== undefined) settings[key] = value;
    }
    return { ...graphRequest(indexDir, settings), args: { indexDir, models: source.models } };
  },
  async open(ref, args) {
    const indexDir = args.indexDir as string | undefined;
    return loadGraph(ref.dir, indexDir ? { fingerprint: indexIdentity(indexDir).fingerprint } : undefined);
  },
};

/** The request for the graph of an index (inputs = its identity). */
export function graphRequest(indexDir: string, settings: Record<string, unknown> = {}) {
  return { inputs: { index: indexIdentity(indexDir).fingerprint }, settings, args: { indexDir } };
}

let registered = false;
export function register(): void {
  if (registered) return;
  registered = true;
  registerArtifactKind(dualgGraphKind);
}
