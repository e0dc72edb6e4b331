/** A content fingerprint of a GnnGraph: the identity a checkpoint is bound to (node/relation ids, edges, documents). */
import crypto from 'node:crypto';
import type { GnnGraph } from '../types';

const cache = new WeakMap<GnnGraph, string>();

export function gnnGraphFingerprint(graph: GnnGraph): string {
  const hit = cache.get(graph);
  if (hit) return hit;
  const h = crypto.createHash('sha256');
  h.update(JSON.stringify([graph.numNodes, graph.numRelations, graph.numDocs, graph.src.length]));
  for (const a of [graph.src, graph.dst, graph.rel, graph.nodeDoc.node, graph.nodeDoc.doc]) h.update(Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  h.update(graph.docIds.join('\u0000'));
  const fp = h.digest('hex');
  cache.set(graph, fp);
  return fp;
}
