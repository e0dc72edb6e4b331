/**
 * Named GNN sizes. A preset is a shorthand for the architecture settings that
 * decide what a checkpoint is, recorded with every checkpoint and shown in
 * every label that names one:
 *   'paper'  the paper's retriever (NBFNet-style, GFM-RAG's public configs):
 *            6 layers x 512, the query encoded by the embeddings stage (a
 *            sentence encoder served behind /v1/embeddings), no heuristic prior;
 *   'cpu'    what trains in ~20 minutes on 2 shared CPU cores: 2 layers x 64,
 *            hashed bag of words + GloVe query, prior-conditioned on the
 *            untrained heuristic (gnn/config.ts says why each choice).
 * A configuration that matches neither is 'custom' (its size is still shown).
 */
import { KfError } from '../../util/errors';
import type { GnnConfig } from './config';
import type { QueryEncoder } from './query-encoder';

export const GNN_PRESET_NAMES = ['cpu', 'paper'] as const;
export type GnnPresetName = (typeof GNN_PRESET_NAMES)[number];

export interface GnnPreset {
  layers: number;
  hidden: number;
  queryEncoder: QueryEncoder;
  prior: boolean;
}

export const GNN_PRESETS: Record<GnnPresetName, GnnPreset> = {
  cpu: { layers: 2, hidden: 64, queryEncoder: 'hashed+glove', prior: true },
  paper: { layers: 6, hidden: 512, queryEncoder: 'embeddings', prior: false },
};

export function gnnPreset(name: string): GnnPreset {
  if (!(GNN_PRESET_NAMES as readonly string[]).includes(name))
    throw new KfError('bad_option', `unknown GNN preset ${JSON.stringify(name)}`, `use one of ${GNN_PRESET_NAMES.join(', ')}`, { concerns: name });
  return GNN_PRESETS[name as GnnPresetName];
}

/** The preset a configuration is, or 'custom'. */
export function presetOf(c: Pick<GnnConfig, 'layers' | 'hidden' | 'queryEncoder' | 'prior'>): GnnPresetName | 'custom' {
  for (const name of GNN_PRESET_NAMES) {
    const p = GNN_PRESETS[name];
    if (p.layers === c.layers && p.hidden === c.hidden && p.queryEncoder === c.queryEncoder && p.prior === c.prior) return name;
  }
  return 'custom';
}

/** "cpu 2x64" / "paper 6x512" / "custom 3x128": the preset with the size it stands for. */
export function presetLabel(c: Pick<GnnConfig, 'layers' | 'hidden' | 'queryEncoder' | 'prior'>): string {
  return `${presetOf(c)} ${c.layers}x${c.hidden}`;
}
