/**
 * Measured cost of a GNN preset on this machine: milliseconds per query (forward + path decoding) and per
 * training step (batch of --batch questions, default 4, the fine-tuning node loss 0.3 BCE + 0.7 list ranking), on a random graph of a given size (default: the
 * 2Wiki graph's 37K entities and 348K directed edges, relation vocabulary 400). A random graph has no hubs,
 * so the active subgraph reaches the edge cap as a real graph at 3+ hops does (gnn/config.ts): the figure
 * is the capped cost. Small samples; on a shared machine the wall clock includes other processes' load.
 *
 *   node --import tsx lib/dualg/scripts/gnn-cost.ts --preset paper --queries 3 --steps 2
 */
import { scriptArgs } from '../../util/script-args';
import * as os from 'node:os';
import { initTf, tf } from '../../tf/backend';
import { gnnConfig } from '../gnn/config';
import { GnnModel } from '../gnn/model';
import { gnnPreset } from '../gnn/preset';
import { queryInputDim } from '../gnn/query-encoder';
import { makeGnnScorer } from '../gnn/scorer';
import { trainStep } from '../train/step';
import { FINETUNE_LOSS } from '../train/losses';
import type { GnnGraph, GnnQuery } from '../types';
import { makeRng } from '../../util/rng';

const { values } = scriptArgs(__filename, {
  options: {
    preset: { type: 'string', default: 'paper' },
    nodes: { type: 'string', default: '37000' },
    edges: { type: 'string', default: '348000' },
    queries: { type: 'string', default: '3' },
    steps: { type: 'string', default: '2' },
    batch: { type: 'string', default: '4' },
    maxEdges: { type: 'string', default: '10000' },
    embeddingDim: { type: 'string', default: '768' },
  },
});

function randomGraph(n: number, e: number, relations: number, seed: string): GnnGraph {
  const r = makeRng(seed);
  const rng = () => r.next();
  const half = Math.floor(e / 2);
  const src = new Int32Array(2 * half),
    dst = new Int32Array(2 * half),
    rel = new Int32Array(2 * half);
  for (let i = 0; i < half; i++) {
    const u = Math.floor(rng() * n),
      v = Math.floor(rng() * n),
      r = Math.floor(rng() * relations);
    src[2 * i] = u;
    dst[2 * i] = v;
    rel[2 * i] = r;
    src[2 * i + 1] = v;
    dst[2 * i + 1] = u;
    rel[2 * i + 1] = r + relations;
  }
  const docs = Math.ceil(n / 6);
  const node = Int32Array.from({ length: n }, (_, i) => i);
  const doc = Int32Array.from({ length: n }, (_, i) => i % docs);
  return {
    numNodes: n,
    numRelations: 2 * relations,
    src,
    dst,
    rel,
    nodeDoc: { node, doc, weight: new Float32Array(n).fill(1) },
    numDocs: docs,
    docIds: Array.from({ length: docs }, (_, i) => `d${i}`),
    nodeText: Array.from({ length: n }, (_, i) => `e${i}`),
    relationText: Array.from({ length: 2 * relations }, (_, i) => `r${i}`),
  };
}

function query(g: GnnGraph, dim: number, rng: () => number): GnnQuery {
  const v = Float32Array.from({ length: dim }, () => rng() - 0.5);
  return {
    seeds: Int32Array.of(Math.floor(rng() * g.numNodes), Math.floor(rng() * g.numNodes)),
    seedWeights: Float32Array.of(1, 1),
    queryVector: v,
    queryEmbedding: v,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const info = await initTf();
  const p = gnnPreset(values.preset!);
  const dim = p.queryEncoder === 'embeddings' ? Number(values.embeddingDim) : queryInputDim(p.queryEncoder);
  const g = randomGraph(Number(values.nodes), Number(values.edges), 200, 'cost');
  const model = new GnnModel(
    gnnConfig({
      layers: p.layers,
      hidden: p.hidden,
      maxActiveEdges: Number(values.maxEdges),
      inputDim: dim,
      numRelations: g.numRelations,
      queryEncoder: p.queryEncoder,
      prior: p.prior,
    }),
  );
  const params = model.trainableVariables().reduce((a, v) => a + v.size, 0);
  const qr = makeRng('queries');
  const rng = () => qr.next();
  const score = makeGnnScorer(model, { paths: 5 });
  const perQuery: number[] = [];
  let edges = 0;
  for (let i = 0; i < Number(values.queries); i++) {
    const t0 = performance.now();
    const r = score(g, query(g, dim, rng));
    perQuery.push(performance.now() - t0);
    console.error(`query ${i + 1}: ${Math.round(perQuery[i])} ms, ${r.active.edges} active edges`);
    edges = r.active.edges;
  }
  const opt = tf.train.adam(5e-4);
  const perStep: number[] = [];
  for (let i = 0; i < Number(values.steps); i++) {
    // Each question's target: the document of a neighbour of its first seed (inside the active subgraph).
    const ex = Array.from({ length: Number(values.batch) }, (_, j) => {
      const q = query(g, dim, rng);
      const e = g.src.indexOf(q.seeds[0]);
      return { id: `q${i}-${j}`, query: q, targetDocs: Int32Array.of(g.nodeDoc.doc[e >= 0 ? g.dst[e] : q.seeds[0]]) };
    });
    const t0 = performance.now();
    trainStep(model, opt, g, ex, FINETUNE_LOSS);
    perStep.push(performance.now() - t0);
    console.error(`step ${i + 1}: ${Math.round(perStep[i])} ms`);
  }
  const load = os.loadavg()[0].toFixed(2);
  console.log(
    JSON.stringify({
      preset: values.preset,
      size: `${p.layers}x${p.hidden}`,
      parameters: params,
      backend: info.backend,
      cores: os.cpus().length,
      loadAverage1m: Number(load),
      graph: { nodes: g.numNodes, edges: g.src.length },
      activeEdgesPerQuery: edges,
      msPerQuery: perQuery.map(Math.round),
      medianMsPerQuery: Math.round(median(perQuery)),
      trainBatch: Number(values.batch),
      msPerTrainStep: perStep.map(Math.round),
      medianMsPerTrainStep: Math.round(median(perStep)),
    }),
  );
}

void main();
