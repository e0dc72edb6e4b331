/**
 * Offline embedders by name, and the embedder persisted with an index.
 *
 * An index remembers its embedder's id. On load, an embedder that was fitted
 * on the corpus (corpus-fitted) is restored from the index folder; stateless
 * offline ones (hash-N, glove-sif-100d) are rebuilt from their id; anything
 * else (an OpenAI-compatible model) must be passed in by the caller.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Embedder } from '../types';
import { HashingEmbedder } from './hashing';
import { GloveSifEmbedder } from './glove-sif';
import { CorpusFittedEmbedder, type CorpusFittedOptions } from './corpus-fitted';
import { KfError } from '../../util/errors';

/** An embedder whose state must travel with the index (fitted on its corpus). */
export interface PersistentEmbedder extends Embedder {
  save(dir: string): void;
}

export function isPersistentEmbedder(e: Embedder): e is PersistentEmbedder {
  return typeof (e as Partial<PersistentEmbedder>).save === 'function';
}

export type OfflineEmbedderName = 'hash' | 'glove-sif' | 'corpus-fitted';
export const OFFLINE_EMBEDDERS: readonly OfflineEmbedderName[] = ['hash', 'glove-sif', 'corpus-fitted'];

/**
 * Make an offline embedder. `corpus-fitted` needs the corpus texts to fit on
 * (the build step passes the fragments' index texts).
 */
export async function makeOfflineEmbedder(
  name: OfflineEmbedderName,
  corpusTexts?: string[],
  opts: { hashDim?: number; fitted?: CorpusFittedOptions } = {},
): Promise<Embedder> {
  switch (name) {
    case 'hash':
      return new HashingEmbedder(opts.hashDim ?? 64);
    case 'glove-sif':
      return new GloveSifEmbedder();
    case 'corpus-fitted':
      if (!corpusTexts)
        throw new KfError('bad_option', 'the corpus-fitted embedder needs the corpus texts to fit on', 'pass the fragments (or use hash / glove-sif)');
      return CorpusFittedEmbedder.fit(corpusTexts, opts.fitted);
    default:
      throw new KfError('bad_option', `unknown offline embedder "${String(name)}"`, `use one of ${OFFLINE_EMBEDDERS.join(', ')}`);
  }
}

/** Save a persistent embedder into `dir/embedder/`; returns whether anything was saved. */
export function saveEmbedderState(e: Embedder, dir: string): boolean {
  if (!isPersistentEmbedder(e)) return false;
  e.save(path.join(dir, 'embedder'));
  return true;
}

/** Restore the embedder an index was built with, when it can be restored without the caller's help. */
export function restoreEmbedder(dir: string, id: string): Embedder {
  const sub = path.join(dir, 'embedder');
  if (fs.existsSync(sub) && CorpusFittedEmbedder.isSavedIn(sub)) return CorpusFittedEmbedder.load(sub);
  const m = /^hash-(\d+)$/.exec(id);
  if (m) return new HashingEmbedder(Number(m[1]));
  if (id === 'glove-sif-100d') return new GloveSifEmbedder();
  throw new KfError(
    'embedder_required',
    `the index in ${dir} was built with embedder "${id}", which cannot be restored offline`,
    'pass that embedder to SearchEngine.load (e.g. the OpenAI-compatible embedder with the same model)',
    { concerns: dir },
  );
}
