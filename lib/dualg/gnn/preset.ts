/**
 * Named GNN sizes. A preset is a shorthand for the architecture settings that
 * decide what a checkpoint is, recorded with every checkpoint and shown in
 * every label that names one:
 *   'paper'  the paper's retriever as its equations write it: 6 layers x 512,
 *            the query encoded by the embeddings stage (a sentence encoder
 *            served behind /v1/embeddings), no heuristic prior, the paper's
 *            update (binary seed mask, DistMult, sum + one linear layer,
 *            MLP(h)) and the sparse entity-to-document projection;
 *   'cpu'    what trains in ~20 minutes on 2 shared CPU cores: 2 layers x 64,
 *            hashed bag of words + GloVe query, prior-conditioned on the
 *            untrained heuristic, with the rich update (weighted seeds,
 *            query-gated relations, boundary, residual, LayerNorm) and
 *            GFM-RAG's top-20 sigmoid x 1/df ranker -- variants, named as such
 *            (gnn/config.ts says why each choice).
 * A configuration that matches neither is 'custom' (its size is still shown).
 */
import { KfError } from '../../util/errors';
import type { GnnConfig, GnnProjection, GnnUpdate } from './config';
import type { QueryEncoder } from './query-encoder';

export const GNN_PRESET_NAMES = ['cpu', 'paper'] as const;
export type GnnPresetName = (typeof GNN_PRESET_NAMES)[number];

export interface GnnPreset {
  layers: number;
  hidden: number;
  queryEncoder: QueryEncoder;
  prior: boolean;
  update: GnnUpdate;
  projection: GnnProjection;
}

export const GNN_PRESETS: Record<GnnPresetName, GnnPreset> = {
  cpu: { layers: 2, hidden: 64, queryEncoder: 'hashed+glove', prior: true, update: 'rich', projection: 'topk-idf' },
  paper: { layers: 6, hidden: 512, queryEncoder: 'embeddings', prior: false, update: 'paper', projection: 'sparse' },
};

type PresetFacts = Pick<GnnConfig, 'layers' | 'hidden' | 'queryEncoder' | 'prior'> & Partial<Pick<GnnConfig, 'update' | 'projection'>>;

export function gnnPreset(name: string): GnnPreset {
  if (!(GNN_PRESET_NAMES as readonly string[]).includes(name))
    throw new KfError('bad_option', `unknown GNN preset ${JSON.stringify(name)}`, `use one of ${GNN_PRESET_NAMES.join(', ')}`, { concerns: name });
  return GNN_PRESETS[name as GnnPresetName];
}

/** The preset a configuration is, or 'custom'. */
export function presetOf(c: PresetFacts): GnnPresetName | 'custom' {
  const update = c.update ?? 'rich';
  const projection = c.projection ?? 'topk-idf';
  for (const name of GNN_PRESET_NAMES) {
    const p = GNN_PRESETS[name];
    const same = p.layers === c.layers && p.hidden === c.hidden && p.queryEncoder === c.queryEncoder && p.prior === c.prior;
    if (same && p.update === update && p.projection === projection) return name;
  }
  return 'custom';
}

/** "cpu 2x64" / "paper 6x512" / "custom 3x128": the preset with the size it stands for. */
export function presetLabel(c: PresetFacts): string {
  return `${presetOf(c)} ${c.layers}x${c.hidden}`;
}
