/**
 * Query entity linking through the `embedding` stage (retriever setting `linking = "stage"`) over REAL HTTP
 * against the scripted server: a mention no graph name spells out is embedded with the graph's entity names
 * and linked to the nearest name at cosine >= 0.8; the names are embedded once per graph; the system identity
 * says who linked. Without an endpoint the setting is refused at load; the default stays the trigram index,
 * labelled the offline stand-in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildDualGraph } from '../../lib/dualg/graph/build';
import { DENSE_LINK_MIN, TRIGRAM_LINKING_LABEL } from '../../lib/dualg/query/dense-link';
import { NameIndex, nearestRows, unitRows } from '../../lib/dualg/query/name-index';
import { linkQuery } from '../../lib/dualg/query/link';
import { DualgSearcher, SEARCHER_DEFAULTS } from '../../lib/dualg/query/searcher';
import { mentionLinker, searcherParts } from '../../lib/dualg/retriever';
import { createModelRouter } from '../../lib/models/router';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { SECRET } from '../models/helpers';
import { acmeSource, emptyAcmeKb } from './acme-world.helper';
import { withPattern } from '../../lib/dualg/query/search-pattern';

const SOURCE = acmeSource('dl', 'fp-dense-link');

const emptyKb = emptyAcmeKb;

/**
 * The scripted encoder: the roadrunner in any spelling points one way; "Roadway" shares 0.6 of that direction
 * (below the threshold); Acme and Arizona have their own axes; every other text a direction of its length.
 */
function vectorOf(t: string): number[] {
  const s = t.toLowerCase();
  if (s === 'roadway') return [0.6, 0, 0, 0.8, 0];
  if (s.replace(/\W/g, '').includes('roadrunner')) return [1, 0, 0, 0, 0];
  if (s.includes('acme')) return [0, 1, 0, 0, 0];
  if (s.includes('arizona')) return [0, 0, 1, 0, 0];
  return [0, 0, 0, 0.2, 0.1 * s.length];
}

/** Runs `body` with the artifact store (where the name vectors are kept) in a fresh temporary folder. */
async function withTempArtifacts(body: (root: string) => Promise<void>): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-dense-link-'));
  const before = process.env.KF_ARTIFACTS;
  process.env.KF_ARTIFACTS = root;
  try {
    await body(root);
  } finally {
    if (before === undefined) delete process.env.KF_ARTIFACTS;
    else process.env.KF_ARTIFACTS = before;
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const embeddingInputs = (server: ScriptedServer) => server.requests.filter((r) => r.kind === 'embeddings').map((r) => r.body.input as string[]);

test('linking = "stage": mentions linked by the endpoint\'s vectors above cosine 0.8, names embedded once, identity says so', async () => {
  const server = await ScriptedServer.start();
  server.on({ kind: 'embeddings', reply: (req) => ({ embeddings: (req.body.input as string[]).map(vectorOf) }) });
  try {
    await withTempArtifacts(async () => {
      const env = { OPENAI_API_KEY: SECRET, KF_EMBED_BASE_URL: server.url, KF_EMBED_MODEL: 'name-encoder' };
      const linker = mentionLinker('stage', 'dualg', createModelRouter({}, { env, cacheMode: 'off' }))!;
      assert.match(linker.label, /embedding stage .*name-encoder.*cosine >= 0\.8/);
      assert.equal(DENSE_LINK_MIN, 0.8, "the paper's equivalence threshold, fixed a priori");
      const g = await buildDualGraph(SOURCE);
      const parts = searcherParts(g);
      const q = 'Where does The Roadrunner live?';
      const pattern = { conditions: [['The Roadrunner', 'lives in', '?x']] as [string, string, string][], by: 'model pat', entities: ['The Roadrunner'] };

      // The offline stand-in: no word shared with "Road Runner", so the trigram index links nothing.
      assert.equal(linkQuery(parts.view, q, ['The Roadrunner']).seeds.length, 0);
      const offline = await new DualgSearcher(parts, SEARCHER_DEFAULTS, 'dualg').search(q, { k: 2, extra: withPattern(pattern) }, emptyKb);
      assert.equal(offline.hits.length, 0, 'nothing linked: the (empty) hybrid fallback');
      assert.equal(offline.system?.linking, TRIGRAM_LINKING_LABEL);
      assert.equal(offline.system?.label, 'scorer heuristic (untrained)', 'the default keeps its label');
      assert.equal(embeddingInputs(server).length, 0, 'the stand-in calls no endpoint');

      const searcher = new DualgSearcher({ ...parts, linker }, SEARCHER_DEFAULTS, 'dualg');
      const r = await searcher.search(q, { k: 2, extra: withPattern(pattern) }, emptyKb);
      assert.equal(r.hits[0]?.docId, 'road', JSON.stringify(r.notes));
      assert.equal(r.system?.linking, linker.label);
      assert.match(String(r.system?.label), /^scorer heuristic \(untrained\); entities linked by the embedding stage/);
      const near = await linker.nearestOf(parts.view, ['The Roadrunner', 'Roadway', 'Arizona'], 3);
      assert.deepEqual(
        near.get('The Roadrunner')?.map((n) => g.entityNames[n.entity]),
        ['Road Runner'],
      );
      assert.deepEqual(near.get('Roadway'), [], 'cosine 0.6 is below the threshold');
      assert.equal(near.has('Arizona'), false, 'an exact graph name is matched by the dictionary, not embedded');

      const inputs = embeddingInputs(server);
      const nameCalls = inputs.filter((x) => x.includes('Road Runner'));
      assert.equal(nameCalls.length, 1, 'the entity names are embedded once per graph and model');
      assert.deepEqual([...nameCalls[0]].sort(), [...g.entityNames].sort());
      assert.ok(
        inputs.some((x) => x.length === 1 && x[0] === 'The Roadrunner'),
        'the mention is embedded on its own',
      );
      assert.equal(server.requests.find((x) => x.kind === 'embeddings')?.body.model, 'name-encoder');
    });
  } finally {
    await server.close();
  }
});

test('the name vectors are an artifact: a second linker (as in a new process) opens them and embeds no name', async () => {
  const server = await ScriptedServer.start();
  server.on({ kind: 'embeddings', reply: (req) => ({ embeddings: (req.body.input as string[]).map(vectorOf) }) });
  try {
    await withTempArtifacts(async (root) => {
      const env = { OPENAI_API_KEY: SECRET, KF_EMBED_BASE_URL: server.url, KF_EMBED_MODEL: 'name-encoder' };
      const g = await buildDualGraph(SOURCE);
      const pattern = { conditions: [['The Roadrunner', 'lives in', '?x']] as [string, string, string][], by: 'model pat', entities: ['The Roadrunner'] };
      const nameRequests = () => embeddingInputs(server).filter((x) => x.includes('Road Runner')).length;
      const runOnce = async () => {
        // Each construction has its own linker, so nothing is shared in memory: only the artifact store.
        const searcher = new DualgSearcher(
          { ...searcherParts(g), linker: mentionLinker('stage', 'dualg', createModelRouter({}, { env, cacheMode: 'off' }))! },
          SEARCHER_DEFAULTS,
          'dualg',
        );
        return (await searcher.search('Where does The Roadrunner live?', { k: 2, extra: withPattern(pattern) }, emptyKb)).hits[0]?.docId;
      };
      assert.equal(await runOnce(), 'road');
      assert.equal(nameRequests(), 1, 'the first construction embeds the names');
      assert.equal(fs.readdirSync(path.join(root, 'dualg-name-vectors')).filter((n) => !n.startsWith('.')).length, 1, 'stored as one artifact');
      const mentionCalls = embeddingInputs(server).length;
      assert.equal(await runOnce(), 'road', 'the same link from the stored vectors');
      assert.equal(nameRequests(), 1, 'the second construction embeds no entity name');
      assert.equal(embeddingInputs(server).length, mentionCalls + 1, 'only the mention is embedded');
    });
  } finally {
    await server.close();
  }
});

test('on this fixture the HNSW name index links what the exact scan links', async () => {
  const g = await buildDualGraph(SOURCE);
  const vec = (t: string) => Float32Array.from(vectorOf(t));
  const m = { dim: 5, rows: unitRows(g.entityNames.map(vec), 5) };
  const graph = NameIndex.build(m, 0);
  assert.ok(graph.graph, 'forced past the size cut-off');
  const mentions = ['The Roadrunner', 'Roadway', 'ACME corporation', 'the Arizona desert', 'Coyote'].map(vec);
  const exact = nearestRows(m, mentions, 3, DENSE_LINK_MIN);
  assert.ok(exact.some((r) => r.length > 0));
  assert.deepEqual(graph.nearest(mentions, 3, DENSE_LINK_MIN), exact);
});

test('linking setting: trigrams by default, "stage" refused without an embedding endpoint, anything else refused', () => {
  assert.equal(mentionLinker(undefined, 'dualg', createModelRouter({}, { env: {}, cacheMode: 'off' })), undefined);
  assert.equal(mentionLinker('trigrams', 'dualg', createModelRouter({}, { env: {}, cacheMode: 'off' })), undefined);
  assert.throws(
    () => mentionLinker('stage', 'dualg', createModelRouter({}, { env: {}, cacheMode: 'off' })),
    (e: Error & { code?: string }) =>
      e.code === 'models_required' && /linking = "stage"/.test(e.message) && /KF_EMBED_BASE_URL/.test(String((e as { hint?: string }).hint)),
  );
  assert.throws(() => mentionLinker('colbert', 'dualg', createModelRouter({}, { env: {}, cacheMode: 'off' })), /linking must be "trigrams" or "stage"/);
});

test('nearestRows: per query vector, top k by cosine at or above the floor, ties by entity id, in one pass', () => {
  const m = { dim: 5, rows: Float32Array.from([1, 0, 0, 0, 0, 0.8, 0.6, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0]) };
  const [a, b, c] = nearestRows(m, [Float32Array.of(2, 0, 0, 0, 0), Float32Array.of(1, 0, 0, 0, 0), Float32Array.of(0, 0, 0, 1, 1)], 3, 0.8);
  assert.deepEqual(
    a.map((n) => [n.entity, +n.similarity.toFixed(2)]),
    [
      [0, 1],
      [3, 1],
      [1, 0.8],
    ],
  );
  assert.deepEqual(
    b.map((n) => n.entity),
    [0, 3, 1],
  );
  assert.deepEqual(c, [], 'nothing near enough');
  assert.deepEqual(
    nearestRows(m, [Float32Array.of(0, 1, 0, 0, 0)], 1, 0.5).map((r) => r.map((n) => n.entity)),
    [[2]],
  );
});
