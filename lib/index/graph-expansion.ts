/**
 * One-hop graph expansion of a ranked list (the "+graph" of hybrid+graph): each
 * of the top `anchors` hits brings up to `perAnchor` fragments related to it
 * (relation weight >= minWeight, inside the docIds mask, not already listed),
 * placed right after their anchor with its score, or after all primary hits.
 */
import type { SearchHit } from './types';

/** A ranked candidate by engine slot. */
export interface Ranked {
  slot: number;
  score: number;
  bm25?: number;
  dense?: number;
  fused?: number;
  via: SearchHit['via'];
}

export type Listed = Ranked & { anchorId?: string; relation?: string };

export interface ExpansionGraph {
  /** Whether any fragment has relations (no work at all otherwise). */
  hasRelations: boolean;
  /** A fragment's relations, strongest first. */
  related(fragmentId: string): readonly { to: string; type: string; weight: number }[];
  slotOf(fragmentId: string): number | undefined;
  idAt(slot: number): string;
  mask: Uint8Array | null;
  options: { anchors: number; perAnchor: number; minWeight: number; placement: 'after-anchor' | 'append' };
}

export function expandAlongRelations(primary: Ranked[], g: ExpansionGraph): Listed[] {
  const { anchors, perAnchor, minWeight, placement } = g.options;
  if (!g.hasRelations || anchors <= 0 || perAnchor <= 0) return primary;
  const taken = new Set(primary.map((r) => r.slot));
  const expansions = new Map<number, Listed[]>();
  for (const a of primary.slice(0, anchors)) {
    const anchorId = g.idAt(a.slot);
    const out: Listed[] = [];
    for (const e of g.related(anchorId)) {
      if (out.length >= perAnchor) break;
      if (e.weight < minWeight) continue;
      const s = g.slotOf(e.to);
      if (s === undefined || taken.has(s)) continue;
      if (g.mask && !g.mask[s]) continue;
      taken.add(s);
      out.push({ slot: s, score: a.score, fused: a.fused, via: 'expansion', anchorId, relation: e.type });
    }
    if (out.length) expansions.set(a.slot, out);
  }
  if (!expansions.size) return primary;
  const listed: Listed[] = [];
  const tail: Listed[] = [];
  for (const r of primary) {
    listed.push(r);
    const ex = expansions.get(r.slot);
    if (ex) (placement === 'after-anchor' ? listed : tail).push(...ex);
  }
  listed.push(...tail);
  return listed;
}
