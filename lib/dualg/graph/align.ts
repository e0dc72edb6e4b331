/**
 * Cross-tier alignment C: E_m -> E_M (spec): a micro anchor (table row entity,
 * cell, image subject) maps to the macro entity with the same normalised name,
 * else to the most similar name among entities sharing a word with it (trigram
 * cosine >= MIN_SIMILARITY; the paper uses ColBERT for this soft link), else to
 * none (-1): the fact then stays micro-only, reachable through its document.
 */
import { nameSimilarity } from './equivalence';
import { nameKey } from './names';
import type { RawMicroFact } from './micro';
import type { DualGraph, MicroFact } from './types';

export const MIN_SIMILARITY = 0.75;
const MAX_WORD_DF = 50;

/** Nearest-name lookup over a graph's entities (exact key first). */
export class EntityNameIndex {
  private readonly byWord = new Map<string, number[]>();

  constructor(private readonly g: Pick<DualGraph, 'entityKeys' | 'aliases'>) {
    g.entityKeys.forEach((k, id) => {
      for (const w of new Set(k.split(' '))) {
        if (w.length < 2) continue;
        const l = this.byWord.get(w);
        if (!l) this.byWord.set(w, [id]);
        else if (l.length <= MAX_WORD_DF) l.push(id);
      }
    });
  }

  /** Top `k` entities by name similarity to `name` (exact matches score 1). */
  nearest(name: string, k: number, min = MIN_SIMILARITY): { entity: number; similarity: number }[] {
    const key = nameKey(name);
    if (!key) return [];
    const exact = this.g.aliases.get(key);
    if (exact) return exact.slice(0, k).map((entity) => ({ entity, similarity: 1 }));
    const seen = new Set<number>();
    const out: { entity: number; similarity: number }[] = [];
    for (const w of new Set(key.split(' '))) {
      const ids = this.byWord.get(w);
      if (!ids || ids.length > MAX_WORD_DF) continue;
      for (const id of ids) {
        if (seen.has(id)) continue;
        seen.add(id);
        const s = nameSimilarity(key, this.g.entityKeys[id]);
        if (s >= min) out.push({ entity: id, similarity: s });
      }
    }
    return out.sort((a, b) => b.similarity - a.similarity || a.entity - b.entity).slice(0, k);
  }
}

export function alignMicro(raw: (RawMicroFact & { doc: number })[], g: DualGraph): MicroFact[] {
  const index = new EntityNameIndex(g);
  const cache = new Map<string, number>();
  const align = (name: string) => {
    let id = cache.get(name);
    if (id === undefined) {
      id = index.nearest(name, 1)[0]?.entity ?? -1;
      cache.set(name, id);
    }
    return id;
  };
  return raw.map((f) => ({ ...f, uEntity: align(f.u), vEntity: align(f.v) }));
}
