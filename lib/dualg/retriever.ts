/**
 * The DualG-MRAG retrievers, registered by name (lib/pipeline/retrievers.ts).
 * The graph scorer is always explicit -- the name fixes it, or setting
 * `scorer` (gnn | heuristic | ppr) chooses it -- and it is never swapped
 * silently: a gnn retriever without a checkpoint for this graph builds one as
 * the 'gnn-checkpoint' artifact when setting `gnnTrain` is true, else refuses
 * to load naming the `kf train gnn` command. Every search result carries the
 * scorer's identity (RankedEvidence.system: scorer, checkpoint id, its training
 * data, preset, size, what an ablation removed).
 *   'dualg'               the shipped default: linking + micro matching + the
 *                         scorer of setting `scorer` (default heuristic, the
 *                         untrained graph scorer) + micro fusion;
 *   'dualg-gnn'           the paper's method: the same with the trained GNN;
 *   'ppr'                 personalized PageRank on the same graph (HippoRAG-style);
 *   'dualg-no-micro', 'dualg-gnn-no-micro'   w/o the micro graph;
 *   'dualg-no-macro'      w/o the macro graph (micro matches only: no linking,
 *                         no propagation, no hybrid fallback).
 * On first use the graph of the index is prepared as artifact 'dualg-graph'
 * (built once, reused, refused for another index). Settings (experiment
 * `index.settings` / RetrieverSetup.settings): scorer, tau, equivalence (trigrams | stage), linking (trigrams | stage: query
 * mentions linked through the embedding stage, query/dense-link.ts), micro, macro, lexicon, microLabels, microFigures,
 * heuristic.{...}, fusion.{alpha,beta,decay}, hybrid, graphFirst, partialLink, prf, gnnCheckpoint, gnnTrain, gnnTraining, artifacts (store
 * root), benchSettings (false: the defaults even where the index's benchmark has a k-fold choice, bench-settings.ts).
 */
import type { Embedder } from '../model-api/types';
import { RULE_PARTS_NOTE, withStageDefaults } from './stage-defaults';
import type { ModeRetriever } from '../pipeline/engine-knowledge-base';
import { registerRetriever, getRetriever, type RetrieverEntry, type RetrieverSetup } from '../pipeline/retrievers';
import type { SetupModels } from '../pipeline/retriever-entry';
import { KfError } from '../util/errors';
import { graphFor } from './graph-for';
import { toGnnGraph } from './graph/to-gnn';
import type { DualGraph } from './graph/types';
import { graphView } from './query/graph-view';
import { MicroIndex } from './query/micro-match';
import { gnnScorerFactory } from './query/gnn-factory';
import { DualgSearcher, type SearcherParts } from './query/searcher';
import { searcherSettings } from './query/searcher-settings';
import { SCORER_NAMES, type CheckpointIdentity, type ScorerName } from './query/scorer-identity';
import { denseLinker, type MentionLinker } from './query/dense-link';
import { denseMicroCandidates, type MicroCandidateSource } from './query/micro-dense';
import { benchChoice, withChoice } from './bench-settings';

export function searcherParts(g: DualGraph): SearcherParts {
  const visualDocs = new Set(g.micro.filter((f) => f.kind === 'image').map((f) => f.doc));
  return { view: graphView(g), docIds: g.docs.map((d) => d.id), micro: new MicroIndex(g.micro), visualDocs };
}

/** A retriever's variant: the scorer its name fixes (else setting `scorer`, else `dflt`), and the parts it removes. */
interface Variant {
  name: string;
  description: string;
  fixed?: ScorerName;
  dflt: ScorerName;
  overrides: Record<string, unknown>;
}

/** The scorer a retriever runs: fixed by its name, or setting `scorer`; a conflicting or unknown setting is refused. */
export function scorerOf(v: Pick<Variant, 'name' | 'fixed' | 'dflt'>, raw: unknown): ScorerName {
  if (raw !== undefined && !(SCORER_NAMES as readonly unknown[]).includes(raw))
    throw new KfError(
      'bad_setting',
      `dualg setting scorer must be one of ${SCORER_NAMES.join(', ')}, got ${JSON.stringify(raw)}`,
      'set scorer = "gnn", "heuristic" or "ppr"',
      {
        concerns: 'scorer',
      },
    );
  if (v.fixed && raw !== undefined && raw !== v.fixed)
    throw new KfError(
      'bad_setting',
      `retriever ${v.name} always scores with ${v.fixed}; setting scorer = ${JSON.stringify(raw)} contradicts it`,
      `drop the setting, or use retriever dualg with scorer = ${JSON.stringify(raw)}`,
      { concerns: 'scorer' },
    );
  return v.fixed ?? (raw as ScorerName | undefined) ?? v.dflt;
}

/** The trained GNN for the graph, or a refusal that names the command training one. */
async function loadGnn(setup: RetrieverSetup, g: DualGraph, name: string): Promise<NonNullable<SearcherParts['gnn']>> {
  const factory = gnnScorerFactory();
  const graph = toGnnGraph(g);
  const loaded = factory
    ? await factory({
        graph,
        graphFingerprint: g.meta.source.fingerprint,
        indexDir: setup.indexDir,
        settings: setup.settings,
        models: setup.models,
        log: setup.log,
      })
    : undefined;
  if (!loaded)
    throw new KfError(
      'gnn_checkpoint_missing',
      `retriever ${name} scores with the trained GNN and there is no checkpoint for this graph (index ${setup.indexDir})`,
      `train one: kf train gnn --index ${setup.indexDir}  (or set gnnTrain = true to build it as an artifact on first use, or scorer = "heuristic" for the untrained scorer, labelled as such)`,
      { concerns: name },
    );
  const embedQuery = queryEmbedder(loaded.checkpoint, name, setup.models);
  return { graph, scorer: loaded.scorer, checkpoint: loaded.checkpoint, ...(embedQuery ? { embedQuery } : {}) };
}

/**
 * Enc(q) for a checkpoint that reads the question through the embeddings stage (the paper preset): the
 * run's embeddings stage (handed in through the set-up: the one it was trained with), or a refusal at load.
 */
function queryEmbedder(
  c: CheckpointIdentity | undefined,
  name: string,
  models: SetupModels | undefined,
): ((text: string) => Promise<Float32Array>) | undefined {
  if (c?.queryEncoder !== 'embeddings') return undefined;
  const embedder = models?.embedder?.();
  if (!embedder)
    throw new KfError(
      'models_required',
      `retriever ${name}: checkpoint ${c.id} reads each question through the embeddings stage and no embedding endpoint is configured`,
      'set KF_EMBED_BASE_URL and KF_EMBED_MODEL to the endpoint the checkpoint was trained with',
      { concerns: name },
    );
  return async (text) => (await embedder.embed([text]))[0];
}

/**
 * A DualG setting that picks "trigrams" (default, the offline stand-in) or "stage" (through the run's embeddings
 * stage, handed in as `models`): the embedder for "stage", undefined for "trigrams"; another value, or "stage"
 * without an endpoint, is refused at load naming what to set. `doing` says what the stage is used for.
 */
function settingEmbedder(setting: string, raw: unknown, name: string, models: SetupModels | undefined, doing: string): Embedder | undefined {
  const which = raw ?? 'trigrams';
  if (which !== 'trigrams' && which !== 'stage')
    throw new KfError(
      'bad_setting',
      `dualg setting ${setting} must be "trigrams" or "stage", got ${JSON.stringify(raw)}`,
      `set ${setting} = "stage" or "trigrams"`,
      {
        concerns: setting,
      },
    );
  if (which === 'trigrams') return undefined;
  const embedder = models?.embedder?.();
  if (!embedder)
    throw new KfError(
      'models_required',
      `retriever ${name}: ${setting} = "stage" ${doing} through the embedding stage and no embedding endpoint is configured`,
      `set KF_EMBED_BASE_URL and KF_EMBED_MODEL (or models.stages.embedding), or use ${setting} = "trigrams" (the offline stand-in)`,
      { concerns: setting },
    );
  return embedder;
}

/** Setting `linking`: the dense linker over the run's embeddings stage ("stage"), or the trigram stand-in (undefined). */
export function mentionLinker(raw: unknown, name: string, models: SetupModels | undefined, log?: (line: string) => void): MentionLinker | undefined {
  const embedder = settingEmbedder('linking', raw, name, models, 'links query mentions');
  return embedder && denseLinker(embedder, log);
}

/** Setting `microCandidates`: the paper's dense top-K = 3 ("stage"), or the micro name index stand-in (undefined). */
export function microCandidateSource(raw: unknown, name: string, models: SetupModels | undefined): MicroCandidateSource | undefined {
  const embedder = settingEmbedder('microCandidates', raw, name, models, 'finds micro candidates');
  return embedder && denseMicroCandidates(embedder);
}

async function create(given: RetrieverSetup, v: Variant): Promise<ModeRetriever> {
  // With an endpoint, the model stages are the default (stage-defaults.ts); the parts left on rules are said per search.
  const { settings: withStages, ruleParts } = withStageDefaults(given.settings, process.env, given.models);
  const setup: RetrieverSetup = { ...given, settings: withStages };
  const scorer = scorerOf(v, setup.settings.scorer);
  // The benchmark's k-fold choice (bench-settings.ts) under the explicit settings; none: the defaults.
  const chosen = withChoice(setup.settings, benchChoice(setup.indexDir, setup.settings));
  const settings = searcherSettings({ ...chosen.settings, ...v.overrides }, scorer);
  // Refused before the graph is built or opened: a missing endpoint should not cost a graph build first.
  const linker = mentionLinker(setup.settings.linking, v.name, setup.models, setup.log);
  const microCandidates = microCandidateSource(setup.settings.microCandidates, v.name, setup.models);
  const g = await graphFor(setup);
  const parts: SearcherParts = { ...searcherParts(g), ...(linker ? { linker } : {}), ...(microCandidates ? { microCandidates } : {}) };
  // Without the macro graph the GNN has nothing to run on: it is neither loaded nor asked for.
  if (scorer === 'gnn' && settings.macro) parts.gnn = await loadGnn(setup, g, v.name);
  const searcher = new DualgSearcher(parts, settings, v.name, chosen.inForce);
  setup.log?.(`${v.name}: ${searcher.identity.label}`);
  const note = `${RULE_PARTS_NOTE}${ruleParts.join(', ')}`;
  return async (query, opts, kb) => {
    const r = await searcher.search(query, opts, kb);
    return { ...r, notes: [...(r.notes ?? []), note] };
  };
}

const WITHOUT_MICRO = 'without the micro graph (no micro matching, no micro fusion)';

export const DUALG_RETRIEVERS: Variant[] = [
  {
    name: 'dualg',
    description:
      'DualG-MRAG graph search with the scorer of setting `scorer` (default: the untrained heuristic, labelled as such): linking, micro matching, micro fusion',
    dflt: 'heuristic',
    overrides: {},
  },
  {
    name: 'dualg-gnn',
    description: "DualG-MRAG with the trained GNN (the paper's method; needs a checkpoint: kf train gnn)",
    fixed: 'gnn',
    dflt: 'gnn',
    overrides: {},
  },
  { name: 'ppr', description: 'personalized PageRank over the DualG macro graph (HippoRAG-style baseline)', fixed: 'ppr', dflt: 'ppr', overrides: {} },
  {
    name: 'dualg-no-micro',
    description: `DualG-MRAG ablation ${WITHOUT_MICRO}; scorer of setting \`scorer\` (default heuristic)`,
    dflt: 'heuristic',
    overrides: { micro: false },
  },
  { name: 'dualg-gnn-no-micro', description: `DualG-MRAG ablation ${WITHOUT_MICRO}, trained GNN`, fixed: 'gnn', dflt: 'gnn', overrides: { micro: false } },
  {
    name: 'dualg-no-macro',
    description: 'DualG-MRAG ablation without the macro graph (micro matches only: no linking, no propagation, no hybrid fallback)',
    dflt: 'heuristic',
    overrides: { macro: false },
  },
];

/** The variants as retriever entries: what the plug-in manifest (lib/dualg/plugin.ts) lists. */
export const DUALG_RETRIEVER_ENTRIES: RetrieverEntry[] = DUALG_RETRIEVERS.map((v) => ({
  name: v.name,
  description: v.description,
  create: (setup) => create(setup, v),
}));

/** Register the entries directly (tests that do not go through the plug-in loader). */
export function register(): void {
  for (const e of DUALG_RETRIEVER_ENTRIES) if (getRetriever(e.name) !== e) registerRetriever(e, { replace: true });
}
