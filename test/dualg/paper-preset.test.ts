/**
 * The paper preset (6 x 512, no prior, Enc(q) from the embeddings stage), over REAL HTTP: training queries
 * and search-time questions are embedded by the configured endpoint; without one the checkpoint build is
 * refused before any work, naming what to configure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Fragment } from '../../lib/corpus/types';
import { gnnCheckpointKind, settings } from '../../lib/dualg/gnn/artifact';
import { embedQueries } from '../../lib/dualg/gnn/query-encoder';
import { buildDualGraph, type GraphSource } from '../../lib/dualg/graph/build';
import { DualgSearcher, SEARCHER_DEFAULTS } from '../../lib/dualg/query/searcher';
import { searcherParts } from '../../lib/dualg/retriever';
import type { GnnQuery } from '../../lib/dualg/types';
import { createModelRouter } from '../../lib/models/router';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import type { KnowledgeBase } from '../../lib/pipeline/knowledge-base';
import { SECRET } from '../models/helpers';

/** One deterministic vector per text: its length and vowel count, so each text has its own. */
const vectorOf = (t: string) => [t.length, (t.match(/[aeiou]/g) ?? []).length, 1, 0];

const text = (id: string, docId: string, t: string): Fragment => ({ id, docId, kind: 'text', text: t, section: [], ordinal: 0, attached: [] });
const SOURCE: GraphSource = {
  id: 'pp',
  fingerprint: 'fp-pp',
  documents: () => [
    { id: 'acme', title: 'Acme Corp' },
    { id: 'arizona', title: 'Arizona' },
  ],
  fragmentsOf: (d) =>
    d === 'acme'
      ? [text('acme#0', 'acme', 'Acme Corp is a company founded by Wile Coyote in Arizona.')]
      : [text('arizona#0', 'arizona', 'Arizona is a state.')],
};

test('paper preset settings; the checkpoint build is refused without an embedding endpoint (and with KG pre-training)', async () => {
  const paper = settings({ preset: 'paper' });
  assert.deepEqual([paper.preset, paper.layers, paper.hidden], ['paper', 6, 512]);
  assert.throws(() => settings({ preset: 'gpu' }), /unknown GNN preset "gpu"/);
  assert.equal(gnnCheckpointKind.usesModels?.({ preset: 'paper' }), true);
  const noEndpoint = createModelRouter({ defaults: { model: 'chat' } }, { env: {}, cacheMode: 'off' });
  const build = (s: ReturnType<typeof settings>) =>
    gnnCheckpointKind.build({
      args: { indexDir: '/nonexistent-index', models: noEndpoint },
      settings: s,
      dir: '/nonexistent',
      log: () => {},
    } as unknown as Parameters<typeof gnnCheckpointKind.build>[0]);
  try {
    await assert.rejects(build(paper), (e: Error & { code?: string }) => e.code === 'models_required' && /embeddings stage/.test(e.message));
    await assert.rejects(build(settings({ preset: 'paper', pretrainEpochs: 1 })), /cannot KG-pretrain/);
  } finally {
    await noEndpoint.close();
  }
});

test('Enc(q) of the paper preset comes from the embedding endpoint, at training and at search time', async () => {
  const server = await ScriptedServer.start();
  server.on({ kind: 'embeddings', reply: (req) => ({ embeddings: (req.body.input as string[]).map(vectorOf) }) });
  const router = createModelRouter(
    { defaults: { baseUrl: server.url, model: 'chat' } },
    { env: { OPENAI_API_KEY: SECRET, KF_EMBED_MODEL: 'sentence-encoder' }, cacheMode: 'off' },
  );
  try {
    const embedder = router.embedder()!;
    const q = (t?: string): GnnQuery => ({ seeds: Int32Array.of(0), seedWeights: Float32Array.of(1), queryVector: new Float32Array(4), queryText: t });
    const queries = [q('Who founded Acme Corp?'), q('Where is Arizona?')];
    assert.equal(await embedQueries(queries, (t) => embedder.embed(t)), 4);
    const unit = (v: number[]) => v.map((x) => x / Math.hypot(...v));
    queries.forEach((x) =>
      assert.deepEqual(
        [...x.queryEmbedding!].map((v) => +v.toFixed(5)),
        unit(vectorOf(x.queryText!)).map((v) => +v.toFixed(5)),
      ),
    );
    await assert.rejects(
      embedQueries([q(undefined)], (t) => embedder.embed(t)),
      /no text for the embeddings stage/,
    );

    // Search time: the GNN part's embedQuery feeds the scorer the endpoint's vector of the question.
    const parts = searcherParts(await buildDualGraph(SOURCE));
    const seen: GnnQuery[] = [];
    parts.gnn = {
      graph: { numNodes: 0 } as never,
      scorer: (_g, query) => {
        seen.push(query);
        return {
          nodeScores: new Float32Array(0),
          docScores: new Float32Array(2),
          paths: [],
          active: { nodes: 0, edges: 0, truncated: false },
          timings: { gnnMs: 0, pathsMs: 0 },
        };
      },
      embedQuery: async (t) => (await embedder.embed([t]))[0],
    };
    const kb = {
      async search(query: string) {
        return { query, retriever: 'hybrid', hits: [], docs: [], timings: { totalMs: 0 } };
      },
      fragment: () => undefined,
    } as unknown as KnowledgeBase;
    const searcher = new DualgSearcher(parts, { ...SEARCHER_DEFAULTS, scorer: 'gnn' }, 'dualg-gnn');
    await searcher.search('Who founded Acme Corp?', { k: 2 }, kb);
    assert.equal(seen.length, 1, 'the GNN scored the question');
    assert.deepEqual([...seen[0].queryEmbedding!], [...queries[0].queryEmbedding!], 'the same vector the endpoint gives the training query');
    const sent = server.requests.filter((r) => r.kind === 'embeddings').flatMap((r) => r.body.input as string[]);
    assert.ok(sent.includes('Who founded Acme Corp?'));
  } finally {
    await router.close();
    await server.close();
  }
});
