import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SearchHit } from '../../lib/index/types';
import type { FragmentKind } from '../../lib/corpus/types';
import { buildPool, PAPER_CAPS } from '../../lib/answer/pool';

function hit(id: string, score: number, rank: number, kind: FragmentKind = 'text', text = 'x'.repeat(100), extra: Partial<SearchHit> = {}): SearchHit {
  return { fragmentId: id, docId: id.split('#')[0], kind, rank, score, scores: {}, via: 'hybrid', text, section: [], media: [], ...extra };
}

test('pool: when everything fits, nothing is dropped and each fragment appears once', () => {
  const s1 = [hit('a#1', 3, 1), hit('b#1', 2, 2)];
  const s2 = [hit('b#1', 5, 1), hit('c#1', 1, 2)];
  const pool = buildPool([
    { query: 'q1', by: 'locator', hits: s1 },
    { query: 'q2', by: 'bridge', hits: s2 },
  ]);
  assert.deepEqual(
    pool.blocks.map((b) => b.fragmentId),
    ['a#1', 'b#1', 'c#1'],
  );
  assert.equal(pool.stats.trimmed, false);
  // Across searches a fragment keeps its best score.
  assert.equal(pool.blocks.find((b) => b.fragmentId === 'b#1')?.score, 5);
  assert.match(pool.text, /^\[1\] /);
  assert.equal((pool.text.match(/id=b#1/g) ?? []).length, 1);
});

test('pool: over the cap, the lowest-scoring unprotected block of the over-cap type is evicted; top-3 protected; order kept', () => {
  const caps = { total: 1000, image: 300, table: 300, example: 200, text: 500 };
  // 12 text hits of ~111 chars each (1,332 > total 1,000): the text cap (500) holds 4.
  const hits = Array.from({ length: 12 }, (_, i) => hit(`d${i}#0`, 20 - i, i + 1, 'text', `sentence ${i} `.repeat(8)));
  const pool = buildPool([{ query: 'q', by: 'oneshot', hits }], { caps, textChars: 100 });
  const ids = pool.blocks.map((b) => b.fragmentId);
  for (const p of ['d0#0', 'd1#0', 'd2#0']) assert.ok(ids.includes(p), `${p} is protected`);
  assert.ok(pool.stats.trimmed);
  assert.ok(pool.stats.evicted.text > 0);
  // Survivors keep their original order.
  const positions = ids.map((id) => Number(id.slice(1, id.indexOf('#'))));
  assert.deepEqual(
    positions,
    positions.slice().sort((a, b) => a - b),
  );
  const textChars = pool.blocks.filter((b) => b.kind === 'text').reduce((s, b) => s + b.cost, 0);
  assert.ok(textChars <= 500 || pool.blocks.every((b) => b.protected), 'text within its cap unless all protected');
});

test('pool: ties evict the later block; media keep their own cap so text cannot rank them out', () => {
  const caps = { total: 600, image: 200, table: 300, example: 200, text: 250 };
  const texts = Array.from({ length: 6 }, (_, i) => hit(`t${i}#0`, 5, i + 1, 'text', 'word '.repeat(20)));
  const img = hit('img#0', 0.1, 7, 'image', 'a chart of values');
  const pool = buildPool([{ query: 'q', by: 'oneshot', hits: [...texts, img] }], { caps, textChars: 80 });
  const ids = pool.blocks.map((b) => b.fragmentId);
  assert.ok(ids.includes('img#0'), 'the low-scoring image survives in its own sub-pool');
  // All unprotected text blocks have score 5: the later ones go first.
  const keptText = ids.filter((i) => i.startsWith('t'));
  assert.deepEqual(keptText, keptText.slice().sort());
  assert.ok(keptText.includes('t3#0') || keptText.length === 3);
  assert.ok(!keptText.includes('t5#0'), 'the latest tied block is evicted first');
  assert.match(pool.text, /\[fig \d+\] image/);
});

test('pool: expansion hits and attached media inherit the anchor score and protection', () => {
  const caps = { total: 300, image: 150, table: 100, example: 100, text: 200 };
  const anchor = hit('a#0', 9, 1, 'text', 'anchor text '.repeat(5), { media: [{ fragmentId: 'a#1', kind: 'image', label: 'Figure 1', caption: 'A chart' }] });
  const exp = hit('e#0', 0.01, 2, 'text', 'expanded '.repeat(5), { via: 'expansion', anchorId: 'a#0', relation: 'similar' });
  const others = Array.from({ length: 4 }, (_, i) => hit(`o${i}#0`, 5 - i, i + 3, 'text', 'other '.repeat(6)));
  const pool = buildPool([{ query: 'q', by: 'oneshot', hits: [anchor, exp, ...others] }], {
    caps,
    textChars: 60,
    lookup: (id) =>
      id === 'a#1'
        ? { id, docId: 'a', kind: 'image', text: 'bar chart: 2019 = 41', section: [], ordinal: 1, attached: [], page: 2, label: 'Figure 1' }
        : undefined,
  });
  const e = pool.blocks.find((b) => b.fragmentId === 'e#0');
  assert.ok(e, 'expansion block survives (inherits protection)');
  assert.equal(e?.score, 9);
  const m = pool.blocks.find((b) => b.fragmentId === 'a#1');
  assert.ok(m && m.protected && m.score === 9 && m.via === 'attached');
  assert.match(pool.text, /\[fig \d+\] image · p\.2 · id=a#1 · Figure 1/);
});

test('pool: M4 plain pool is first-come with one cap', () => {
  const hits = Array.from({ length: 10 }, (_, i) => hit(`d${i}#0`, 10 - i, i + 1, 'text', 'z'.repeat(300)));
  const pool = buildPool([{ query: 'q', by: 'locator', hits }], { kind: 'plain', plainCap: 1000 });
  assert.deepEqual(
    pool.blocks.map((b) => b.fragmentId),
    pool.blocks.map((_, i) => `d${i}#0`),
  );
  assert.ok(pool.blocks.reduce((s, b) => s + b.cost, 0) <= 1000);
  assert.equal(PAPER_CAPS.total, 30000);
});
