/**
 * Knowledge points: offline sentence-level points, and the LLM path (stage
 * 'extraction') with a fake model and with the scripted HTTP server through the
 * router: robust parsing, malformed replies recorded (never fatal), usage counted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractKnowledgePoints, offlineKnowledgePoints, parseExtractionReply, pointId } from '../../lib/index/knowledge-points';
import { createModelRouter } from '../../lib/models/router';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { frag } from './helpers';
import { fakeModel } from '../_shared/fake-model';
import { nonEmpty } from '../_shared/non-empty';

const PROSE =
  'Teutberga was a queen of Lotharingia by marriage to Lothair II. She was a daughter of Boso the Elder. Her marriage was annulled in 869 after a long dispute.';

test('offline: each sentence of a text fragment is a point, capped per fragment; media give one point; short text one point', () => {
  const f = frag('teutberga', PROSE, { ordinal: 0 });
  const pts = offlineKnowledgePoints([f]);
  assert.equal(pts.length, 3);
  assert.deepEqual(
    pts.map((p) => p.id),
    [pointId(f.id, 0), pointId(f.id, 1), pointId(f.id, 2)],
  );
  assert.ok(nonEmpty(pts).every((p) => p.by === 'offline' && p.fragmentId === f.id && p.docId === 'teutberga'));
  assert.equal(pts[1].summary, 'She was a daughter of Boso the Elder.');
  assert.ok(pts[0].title.length > 0 && pts[0].title.length <= 120);

  assert.equal(offlineKnowledgePoints([f], { maxPerFragment: 2 }).length, 2);

  const img = frag('teutberga', 'A bar chart of revenue by year, 2019 to 2023.', { ordinal: 1, kind: 'image', label: 'Figure 2', caption: 'Revenue by year' });
  const ip = offlineKnowledgePoints([img]);
  assert.equal(ip.length, 1);
  assert.equal(ip[0].title, 'Figure 2');
  assert.match(ip[0].summary, /Revenue by year/);

  const short = frag('teutberga', 'Key facts', { ordinal: 2, section: ['Teutberga', 'Key facts'] });
  const sp = offlineKnowledgePoints([short]);
  assert.equal(sp.length, 1);
  assert.equal(sp[0].summary, 'Key facts');

  assert.equal(offlineKnowledgePoints([frag('x', '   ', { ordinal: 3 })]).length, 0);
});

test('extractKnowledgePoints without a model (or with an offline one) runs offline and spends nothing', async () => {
  const f = frag('teutberga', PROSE, { ordinal: 0 });
  const r = await extractKnowledgePoints([f]);
  assert.equal(r.by, 'offline');
  assert.equal(r.points.length, 3);
  assert.equal(r.usage.calls, 0);
  const offline = fakeModel(() => 'never called');
  (offline as { backend: string }).backend = 'offline';
  const r2 = await extractKnowledgePoints([f], { model: offline });
  assert.equal(offline.calls.length, 0);
  assert.deepEqual(r2.points, r.points);
});

test('LLM path: batches, tolerant parsing (fences, trailing commas), malformed replies and failed calls recorded with offline fallback', async () => {
  const a = frag('docA', PROSE, { ordinal: 0 });
  const b = frag('docA', 'The abbey of St. Maurice was founded in 515. It lies in Valais.', { ordinal: 1 });
  const c = frag('docB', 'Lothair II ruled Lotharingia from 855 to 869.', { ordinal: 0 });
  const e = frag('docB', 'Boso the Elder was a Frankish count.', { ordinal: 1 });
  const d = frag('docC', 'Hucbert was a lay abbot of St. Maurice.', { ordinal: 0 });
  const model = fakeModel((req, n) => {
    const task = req.task as { role: string; fragments: { id: string }[] };
    assert.equal(req.stage, 'extraction');
    assert.equal(task.role, 'extraction');
    if (n === 0) {
      // Batch (a, b): fenced JSON with prose around it and a trailing comma; b gets no point; one stray id.
      return 'Here you go:\n```json\n{"points": [{"title": "Teutberga", "summary": "Teutberga was queen of Lotharingia.", "fragment_id": "docA#0"}, {"title": "stray", "summary": "x", "fragment_id": "nope#9"},]}\n```';
    }
    if (n === 1) return 'I cannot do that.'; // batch (c, e): prose, no JSON
    return new Error('HTTP 500 from the endpoint'); // batch (d)
  });
  const r = await extractKnowledgePoints([a, b, c, e, d], { model, batchFragments: 2, concurrency: 1 });
  assert.equal(r.by, 'llm');
  assert.equal(model.calls.length, 3);
  assert.deepEqual(model.calls[0].task?.fragments, [
    { id: 'docA#0', text: a.text, section: [] },
    { id: 'docA#1', text: b.text, section: [] },
  ]);
  assert.equal(r.usage.calls, 2, 'the failed call spent nothing');
  assert.equal(r.usage.promptTokens, 200);
  const byFrag = (id: string) => r.points.filter((p) => p.fragmentId === id);
  assert.deepEqual(
    byFrag('docA#0').map((p) => [p.title, p.by]),
    [['Teutberga', 'llm']],
  );
  assert.ok(byFrag('docA#1').length >= 1 && byFrag('docA#1').every((p) => p.by === 'offline'), 'a skipped fragment falls back to offline points');
  assert.ok(nonEmpty(byFrag('docB#0')).every((p) => p.by === 'offline'));
  assert.deepEqual(r.issues.map((i) => i.code).sort(), ['bad_reply', 'call_failed', 'no_points', 'unknown_fragment']);
  assert.deepEqual(r.issues.find((i) => i.code === 'bad_reply')!.fragmentIds, ['docB#0', 'docB#1']);
  assert.match(r.issues.find((i) => i.code === 'call_failed')!.message, /HTTP 500/);
  // Every fragment is represented: nothing is lost to a bad reply.
  for (const f of [a, b, c, e, d]) assert.ok(byFrag(f.id).length > 0, f.id);
});

test('parseExtractionReply: a truncated reply is repaired; a point without fragment id belongs to a one-fragment batch', () => {
  const cut = '{"points": [{"title": "A", "summary": "First fact.", "fragment_id": "d#0"}, {"title": "B", "summary": "Second fa';
  const p = parseExtractionReply(cut, ['d#0']);
  assert.equal(p.error, undefined);
  assert.equal(p.points[0].summary, 'First fact.');
  const q = parseExtractionReply('{"points": [{"title": "T", "summary": "S."}]}', ['d#0']);
  assert.deepEqual(q.points, [{ title: 'T', summary: 'S.', fragmentId: 'd#0' }]);
  assert.ok(parseExtractionReply('', ['d#0']).error);
});

test('LLM path through the router against the scripted HTTP server: tokens counted from the server, prompt names the fragments', async (t) => {
  const server = await ScriptedServer.start();
  t.after(() => server.close());
  server.on({
    model: 'kp-model',
    reply: (req) => {
      const user = String(req.body.messages[1].content);
      const ids = [...user.matchAll(/fragment_id: (\S+)/g)].map((m) => m[1]);
      return { text: JSON.stringify({ points: ids.map((id) => ({ title: `about ${id}`, summary: `A fact of ${id}.`, fragment_id: id })) }) };
    },
  });
  const router = createModelRouter({ defaults: { baseUrl: server.url, model: 'kp-model' } }, { env: { OPENAI_API_KEY: 'k' }, cacheMode: 'off' });
  t.after(() => router.close());
  const frags = [frag('d1', PROSE, { ordinal: 0 }), frag('d1', 'Another fragment with a fact in it.', { ordinal: 1 })];
  const r = await extractKnowledgePoints(frags, { model: router.forStage('extraction') });
  assert.equal(r.by, 'llm');
  assert.deepEqual(
    r.points.map((p) => p.summary),
    ['A fact of d1#0.', 'A fact of d1#1.'],
  );
  const totals = server.usageTotals();
  assert.equal(r.usage.promptTokens, totals.promptTokens);
  assert.equal(r.usage.completionTokens, totals.completionTokens);
  assert.equal(server.chatRequests().length, 1);
  assert.equal(server.chatRequests()[0].body.response_format?.type, 'json_object');
});
