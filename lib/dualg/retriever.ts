/**
 * The DualG-MRAG retrievers, registered by name (lib/pipeline/retrievers.ts):
 *   'dualg'            linking + micro matching + the trained GNN scorer (DG2's
 *                      lib/dualg/gnn), falling back to the heuristic with a note
 *                      when no checkpoint exists;
 *   'dualg-heuristic'  the same with the untrained graph scorer;
 *   'ppr'              personalized PageRank on the same graph (HippoRAG-style);
 *   'dualg-no-micro', 'dualg-no-macro'   the paper's ablations.
 * On first use the graph of the index is prepared as artifact 'dualg-graph'
 * (built once, reused, refused for another index). Settings (experiment
 * `index.settings` / RetrieverSetup.settings): tau, micro, macro, lexicon, microLabels, microFigures,
 * heuristic.{...}, fusion.{alpha,beta,decay}, artifacts (store root).
 */
import type { ModeRetriever } from '../index/knowledge-base';
import { ArtifactStore } from '../pipeline/artifact-store';
import { registerRetriever, getRetriever, type RetrieverSetup } from '../pipeline/retrievers';
import { KfError } from '../util/errors';
import { graphRequest, register as registerArtifacts } from './artifacts';
import { toGnnGraph } from './graph/to-gnn';
import { DUALG_GRAPH_KIND } from './graph/store';
import type { DualGraph } from './graph/types';
import { FUSION_DEFAULTS } from './query/fuse';
import { graphView } from './query/graph-view';
import { HEURISTIC_DEFAULTS } from './query/heuristic-scorer';
import { MicroIndex } from './query/micro-match';
import { gnnScorerFactory } from './query/scorer';
import { DualgSearcher, SEARCHER_DEFAULTS, type ScorerName, type SearcherParts, type SearcherSettings } from './query/searcher';

function bool(v: unknown, dflt: boolean, name: string): boolean {
  if (v === undefined) return dflt;
  if (typeof v === 'boolean') return v;
  throw new KfError('bad_setting', `dualg setting ${name} must be true or false, got ${JSON.stringify(v)}`, `set ${name} = true or false`, { concerns: name });
}

function numbers<T extends object>(raw: unknown, dflt: T, name: string): T {
  if (raw === undefined) return dflt;
  const out = { ...dflt } as Record<string, number>;
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (!(k in dflt) || typeof v !== 'number' || !Number.isFinite(v))
      throw new KfError('bad_setting', `dualg setting ${name}.${k} is unknown or not a number`, `known: ${Object.keys(dflt).join(', ')}`, {
        concerns: `${name}.${k}`,
      });
    out[k] = v;
  }
  return out as T;
}

export function searcherSettings(raw: Record<string, unknown>, scorer: ScorerName): SearcherSettings {
  return {
    ...SEARCHER_DEFAULTS,
    scorer,
    macro: bool(raw.macro, true, 'macro'),
    micro: bool(raw.micro, true, 'micro'),
    lexicon: bool(raw.lexicon, true, 'lexicon'),
    heuristic: numbers(raw.heuristic, HEURISTIC_DEFAULTS, 'heuristic'),
    fusion: numbers(raw.fusion, FUSION_DEFAULTS, 'fusion'),
    hybrid: raw.hybrid === undefined ? SEARCHER_DEFAULTS.hybrid : Number(raw.hybrid),
    minSeedIdf: raw.minSeedIdf === undefined ? SEARCHER_DEFAULTS.minSeedIdf : Number(raw.minSeedIdf),
    pseudoSeeds: raw.pseudoSeeds === undefined ? SEARCHER_DEFAULTS.pseudoSeeds : Number(raw.pseudoSeeds),
    pseudoOnNoLink: bool(raw.pseudoOnNoLink, SEARCHER_DEFAULTS.pseudoOnNoLink, 'pseudoOnNoLink'),
    microLabels: bool(raw.microLabels, SEARCHER_DEFAULTS.microLabels, 'microLabels'),
    microFigures: bool(raw.microFigures, SEARCHER_DEFAULTS.microFigures, 'microFigures'),
  };
}

/** The graph of the setup's index (prepared as an artifact on first use). */
export async function graphFor(setup: Pick<RetrieverSetup, 'indexDir' | 'settings' | 'log'>): Promise<DualGraph> {
  if (!setup.indexDir)
    throw new KfError(
      'index_required',
      'the DualG retrievers need a built index folder',
      'search through an opened index (kf eval retrieval / kf run build one)',
    );
  registerArtifacts();
  const store = new ArtifactStore({ root: typeof setup.settings.artifacts === 'string' ? setup.settings.artifacts : undefined });
  const { tau, microImages } = setup.settings;
  // Only the settings that change the graph (absent ones keep the default graph's request, so its artifact is reused).
  const request = graphRequest(setup.indexDir, { ...(tau === undefined ? {} : { tau }), ...(microImages === undefined ? {} : { microImages }) });
  await store.prepare(DUALG_GRAPH_KIND, request, { log: setup.log });
  return (await store.open<DualGraph>(DUALG_GRAPH_KIND, request)).value;
}

export function searcherParts(g: DualGraph): SearcherParts {
  const visualDocs = new Set(g.micro.filter((f) => f.kind === 'image').map((f) => f.doc));
  return { view: graphView(g), micro: new MicroIndex(g.micro), visualDocs };
}

async function create(setup: RetrieverSetup, scorer: ScorerName, name: string, overrides: Record<string, unknown> = {}): Promise<ModeRetriever> {
  const settings = searcherSettings({ ...setup.settings, ...overrides }, scorer);
  const g = await graphFor(setup);
  const parts = searcherParts(g);
  if (scorer === 'gnn') {
    const factory = gnnScorerFactory();
    const graph = toGnnGraph(g);
    const gnn = factory
      ? await factory({ graph, graphFingerprint: g.meta.source.fingerprint, indexDir: setup.indexDir, settings: setup.settings, log: setup.log })
      : undefined;
    if (gnn) parts.gnn = { graph, scorer: gnn };
    else setup.log?.('dualg: no trained GNN for this graph; the untrained heuristic scores it');
  }
  const searcher = new DualgSearcher(parts, settings, name);
  return (query, opts, kb) => searcher.search(query, opts, kb);
}

export function register(): void {
  const entries: [string, ScorerName, string, Record<string, unknown>][] = [
    ['dualg', 'gnn', 'DualG-MRAG: entity linking, micro matching, trained GNN over the macro graph (heuristic until a checkpoint exists), micro fusion', {}],
    ['dualg-heuristic', 'heuristic', 'DualG-MRAG graph with the untrained scorer (seed-weighted title-mention/co-occurrence propagation with idf)', {}],
    ['ppr', 'ppr', 'personalized PageRank over the DualG macro graph (HippoRAG-style baseline)', {}],
    ['dualg-no-micro', 'gnn', 'DualG-MRAG ablation: without the micro graph', { micro: false }],
    ['dualg-no-macro', 'gnn', 'DualG-MRAG ablation: without the macro graph (micro matching seeds only)', { macro: false }],
  ];
  for (const [name, scorer, description, overrides] of entries) {
    if (getRetriever(name)) continue;
    registerRetriever({ name, description, create: (setup) => create(setup, scorer, name, overrides) });
  }
}
