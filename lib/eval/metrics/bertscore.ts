/**
 * BERTScore-style F1 with any injected Embedder (WebQA in DualG-MRAG reports
 * BERTScore; no BERT is available offline, so this is the same greedy
 * token-matching formula over whatever token vectors the Embedder gives:
 * precision = mean over prediction tokens of the best cosine to a reference
 * token, recall the other way round, F = harmonic mean). Results are only
 * comparable between runs that use the same Embedder id (reported with them).
 */
import type { Embedder } from '../../index/types';
import { rougeTokens } from './rouge';
import { cosine } from '../../util/vectors';

export async function embeddingF1(prediction: string, reference: string, embedder: Embedder): Promise<{ precision: number; recall: number; f: number }> {
  const p = rougeTokens(prediction);
  const r = rougeTokens(reference);
  if (!p.length || !r.length) return { precision: 0, recall: 0, f: 0 };
  const vocab = [...new Set([...p, ...r])];
  const vecs = await embedder.embed(vocab);
  const vec = new Map(vocab.map((t, i) => [t, vecs[i]]));
  const sim = (x: string, y: string) => (x === y ? 1 : cosine(vec.get(x)!, vec.get(y)!));
  const best = (from: string[], to: string[]) => from.reduce((s, x) => s + Math.max(...to.map((y) => sim(x, y))), 0) / from.length;
  const precision = best(p, r);
  const recall = best(r, p);
  const f = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f };
}
