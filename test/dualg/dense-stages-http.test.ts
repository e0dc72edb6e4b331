/**
 * The paper's model stages of the micro side over REAL HTTP (scripted embedding endpoint): cross-tier
 * alignment C by exact name first, then the nearest entity name by embedding cosine >= 0.8 (graph setting
 * alignment = "stage"); micro candidates by dense top-3 (retriever setting microCandidates = "stage"). The
 * defaults stay the trigram stand-ins, which miss what the dense stages find here; without an endpoint the
 * dense micro candidates are refused at load.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildDualGraph, type GraphSource } from '../../lib/dualg/graph/build';
import { ALIGN_MIN, MIN_SIMILARITY } from '../../lib/dualg/graph/align';
import { nameSimilarity } from '../../lib/dualg/graph/equivalence';
import { graphSettings } from '../../lib/dualg/artifacts';
import { DENSE_MICRO_LABEL } from '../../lib/dualg/query/micro-dense';
import { DualgSearcher, SEARCHER_DEFAULTS } from '../../lib/dualg/query/searcher';
import { microCandidateSource, searcherParts } from '../../lib/dualg/retriever';
import { createModelRouter } from '../../lib/models/router';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import type { Fragment } from '../../lib/corpus/types';
import type { KnowledgeBase } from '../../lib/pipeline/knowledge-base';
import { SECRET } from '../models/helpers';
import { ACME_FRAGMENTS, acmeSource } from './acme-world.helper';
import { withPattern } from '../../lib/dualg/query/search-pattern';

const TABLE: Fragment = {
  id: 'r#0',
  docId: 'r',
  kind: 'table',
  text: 'Revenue table',
  section: [],
  ordinal: 0,
  attached: [],
  table: {
    header: ['Company', 'Revenue'],
    rows: [
      ['The Acme Company', '12'],
      ['Arizona', '7'],
    ],
  },
};
const FRAGMENTS = [...ACME_FRAGMENTS, TABLE];

function source(): GraphSource {
  const base = acmeSource('dense-stages', 'fp-dense-stages');
  return {
    ...base,
    documents: () => [...base.documents(), { id: 'r', title: 'Revenue report' }],
    fragmentsOf: (d) => FRAGMENTS.filter((f) => f.docId === d),
  };
}

/** The scripted encoder: the company under any of its names on one axis, Arizona on another, every other text the zero vector (cosine 0). */
function vectorOf(t: string): number[] {
  const s = t.toLowerCase();
  if (s.includes('acme') || s.includes('coyote firm')) return [1, 0, 0];
  if (s.includes('arizona')) return [0, 1, 0];
  return [0, 0, 0];
}

async function withEndpoint(body: (env: NodeJS.ProcessEnv, inputs: () => string[][]) => Promise<void>): Promise<void> {
  const server = await ScriptedServer.start();
  server.on({ kind: 'embeddings', reply: (req) => ({ embeddings: (req.body.input as string[]).map(vectorOf) }) });
  try {
    const env = { OPENAI_API_KEY: SECRET, KF_EMBED_BASE_URL: server.url, KF_EMBED_MODEL: 'name-encoder' };
    await body(env, () => server.requests.filter((r) => r.kind === 'embeddings').map((r) => r.body.input as string[]));
  } finally {
    await server.close();
  }
}

test('alignment C: exact names first, then the embedding stage at cosine >= 0.8; the trigram stand-in misses the renamed company', async () => {
  assert.equal(ALIGN_MIN, 0.8, "the paper's entity-resolution tau, fixed a priori");
  assert.ok(nameSimilarity('the acme company', 'acme corp') < MIN_SIMILARITY, 'precondition: trigrams cannot align it');
  assert.deepEqual(graphSettings({ alignment: 'stage' }).alignment, 'stage');
  assert.equal(graphSettings({}).alignment, undefined, 'the default is left out of the settings (artifact key unchanged)');
  await withEndpoint(async (env, inputs) => {
    const router = createModelRouter({}, { env, cacheMode: 'off' });
    try {
      const embedder = router.embedder()!;
      const stand = await buildDualGraph(source());
      const dense = await buildDualGraph(source(), { alignNames: (names) => embedder.embed(names) });
      const acme = dense.aliases.get('acme corp')![0];
      const arizona = dense.aliases.get('arizona')![0];
      const fact = (g: typeof dense, u: string) => g.micro.find((f) => f.u === u)!;
      assert.equal(fact(stand, 'The Acme Company').uEntity, -1, 'trigram stand-in: unaligned');
      assert.equal(fact(dense, 'The Acme Company').uEntity, acme, 'dense: aligned to Acme Corp');
      assert.equal(fact(dense, 'Arizona').uEntity, arizona, 'exact name');
      assert.equal(fact(dense, 'The Acme Company').vEntity, -1, 'the cell "12" is near no name (cosine 0)');
      const anchors = inputs()[0];
      assert.ok(anchors.includes('The Acme Company') && !anchors.includes('Arizona'), `only unmatched anchors are embedded: ${JSON.stringify(anchors)}`);
      assert.equal(dense.meta.settings.alignment, 'model');
    } finally {
      await router.close();
    }
  });
});

const kb = {
  async search(query: string) {
    return { query, retriever: 'hybrid', hits: [], docs: [], timings: { totalMs: 0 } };
  },
  fragment: (id: string) => FRAGMENTS.find((f) => f.id === id),
} as unknown as KnowledgeBase;

test('micro candidates: dense top-3 through the embedding stage find the table the trigram name index misses; labelled', async () => {
  await withEndpoint(async (env, inputs) => {
    const g = await buildDualGraph(source());
    const parts = searcherParts(g);
    const settings = { ...SEARCHER_DEFAULTS, macro: false };
    const pattern = { conditions: [['Coyote Firm', 'revenue', '?x']] as [string, string, string][], by: 'model pat', entities: ['Coyote Firm'] };
    const stand = await new DualgSearcher(parts, settings, 'dualg-no-macro').search(
      'What is the revenue of Coyote Firm?',
      { k: 3, extra: withPattern(pattern) },
      kb,
    );
    assert.equal(stand.hits.length, 0, 'no word shared with "The Acme Company": the stand-in finds nothing');
    const dense = microCandidateSource('stage', 'dualg-no-macro', createModelRouter({}, { env, cacheMode: 'off' }))!;
    assert.equal(dense.label, DENSE_MICRO_LABEL);
    const searcher = new DualgSearcher({ ...parts, microCandidates: dense }, settings, 'dualg-no-macro');
    const r = await searcher.search('What is the revenue of Coyote Firm?', { k: 3, extra: withPattern(pattern) }, kb);
    assert.equal(r.hits[0]?.docId, 'r', JSON.stringify(r.notes));
    assert.equal(r.hits[0]?.fragmentId, 'r#0');
    assert.match(String(r.system?.label), /micro candidates by dense top-3 \(embedding stage\)/);
    const calls = inputs();
    assert.equal(calls.length, 2, 'the micro node names once, then the query terms');
    await searcher.search('What is the revenue of Coyote Firm?', { k: 3, extra: withPattern(pattern) }, kb);
    assert.equal(inputs().length, 3, 'a second query embeds only its terms');
  });
  assert.throws(() => microCandidateSource('stage', 'dualg', createModelRouter({}, { env: {}, cacheMode: 'off' })), /no embedding endpoint is configured/);
  assert.equal(microCandidateSource(undefined, 'dualg', createModelRouter({}, { env: {}, cacheMode: 'off' })), undefined, 'the default: the trigram stand-in');
});
