/**
 * Cross-tier alignment C: E_m -> E_M (spec, paper 4.2.1: exact string match, then soft semantic linking): a
 * micro anchor (table row entity, cell, image subject) maps to the macro entity with the same normalised name;
 * else, with graph setting alignment = "stage" (`alignMicroDense`), to the nearest entity name by the cosine of
 * their embeddings from the `embedding` stage, at or above ALIGN_MIN; else (the default, the offline stand-in)
 * to the most similar name among entities sharing a word with it (trigram cosine >= MIN_SIMILARITY); else to
 * none (-1): the fact then stays micro-only, reachable through its document.
 *
 * ALIGN_MIN = 0.8 is fixed a priori, not tuned: the paper's entity-resolution threshold tau, the cosine at
 * which the paper treats two names as one entity (its soft linker is ColBERT, whose scores are not cosines;
 * a sentence encoder's cosine stands in).
 */
import type { NameEmbedder } from './equivalence';
import { nameSimilarity } from './equivalence';
import { nameKey } from './names';
import type { RawMicroFact } from './micro';
import type { DualGraph, MicroFact } from './types';

export const MIN_SIMILARITY = 0.75;
export const ALIGN_MIN = 0.8;
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

function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  const s = n > 0 ? 1 / Math.sqrt(n) : 0;
  return v.map((x) => x * s);
}

/**
 * The paper's alignment: exact names first; every anchor no exact name matched is embedded with the graph's
 * entity names (one `embed` call each batch) and maps to the nearest entity at cosine >= ALIGN_MIN, else -1.
 */
export async function alignMicroDense(raw: (RawMicroFact & { doc: number })[], g: DualGraph, embed: NameEmbedder): Promise<MicroFact[]> {
  const exact = (name: string) => g.aliases.get(nameKey(name))?.[0];
  const unmatched = [...new Set(raw.flatMap((f) => [f.u, f.v]))].filter((n) => nameKey(n) && exact(n) === undefined);
  const chosen = new Map<string, number>();
  if (unmatched.length && g.entityKeys.length) {
    const [names, entities] = [(await embed(unmatched)).map(unit), (await embed(g.entityKeys)).map(unit)];
    names.forEach((q, i) => {
      let best = -1;
      let bestSim = ALIGN_MIN;
      entities.forEach((e, id) => {
        let dot = 0;
        for (let j = 0; j < q.length; j++) dot += q[j] * e[j];
        if (dot >= bestSim && (dot > bestSim || best < 0 || id < best)) [best, bestSim] = [id, dot];
      });
      chosen.set(unmatched[i], best);
    });
  }
  const align = (name: string) => exact(name) ?? chosen.get(name) ?? -1;
  return raw.map((f) => ({ ...f, uEntity: align(f.u), vEntity: align(f.v) }));
}
