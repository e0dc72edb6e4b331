/**
 * The pool as the released runner ranks it (setting poolRanking = runner, the
 * paper configurations' default) beside the harness's earlier rule:
 * - per-type protection: a search's top 3 images are protected even when 8
 *   text hits outscore them (the harness protects the search's top 3 only);
 * - cross-search comparison by the dense score: a fragment's fused score is
 *   not comparable between queries, its vector cosine is;
 * - a type whose blocks are all protected still fits its cap (the lowest goes).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FragmentKind } from '../../lib/corpus/types';
import type { SearchHit } from '../../lib/index/types';
import { agentSettings } from '../../lib/knowforge/agent-settings';
import { buildPool, PAPER_CAPS, type PoolSearch } from '../../lib/answer/pool';

function hit(id: string, kind: FragmentKind, fused: number, dense: number, rank: number, chars = 600): SearchHit {
  return {
    fragmentId: id,
    docId: id.split('#')[0],
    kind,
    rank,
    score: fused,
    scores: { fused, dense },
    via: 'hybrid',
    text: 'w '.repeat(chars / 2),
    section: [],
    media: [],
  };
}

const caps = { ...PAPER_CAPS, total: 12_000, image: 1_200 };

test('runner ranking protects the top 3 of each type within a search; the harness protects the top 3 overall', () => {
  const texts = Array.from({ length: 8 }, (_, i) => hit(`t#${i}`, 'text', 10 - i, 0.5, i + 1));
  const images = Array.from({ length: 3 }, (_, i) => hit(`img#${i}`, 'image', 1 - i * 0.1, 0.4, 9 + i));
  const s: PoolSearch[] = [{ query: 'q', by: 'locator', hits: [...texts, ...images] }];
  const runner = buildPool(s, { caps, ranking: 'runner' });
  const harness = buildPool(s, { caps, ranking: 'harness' });
  const prot = (p: ReturnType<typeof buildPool>, id: string) => p.blocks.find((b) => b.fragmentId === id)?.protected;
  for (const im of images) assert.equal(prot(runner, im.fragmentId), true, `${im.fragmentId} protected (runner)`);
  assert.equal(prot(runner, 't#3'), false, 'the 4th text hit is not');
  assert.equal(
    images.some((im) => harness.blocks.find((b) => b.fragmentId === im.fragmentId)?.protected),
    false,
    'the harness protects no image here',
  );
});

test('runner ranking compares searches by the dense score; the harness by the fused score', () => {
  // Two searches: a's fragments have a high fused score but a low cosine, b's the reverse. The text cap holds seven.
  const a = Array.from({ length: 4 }, (_, i) => hit(`a#${i}`, 'text', 50 - i, 0.1, i + 1, 960));
  const b = Array.from({ length: 4 }, (_, i) => hit(`b#${i}`, 'text', 2 - i * 0.1, 0.9, i + 1, 960));
  const searches: PoolSearch[] = [
    { query: 'qa', by: 'locator', hits: a },
    { query: 'qb', by: 'locator', hits: b },
  ];
  const small = { ...caps, total: 7_500, text: 7_500 };
  const kept = (ranking: 'runner' | 'harness') =>
    buildPool(searches, { caps: small, ranking, textChars: 2_000 })
      .blocks.map((x) => x.fragmentId)
      .sort();
  // Unprotected: the 4th of each search. The runner evicts a#3 (cosine 0.1), the harness b#3 (fused 1.7).
  assert.ok(!kept('runner').includes('a#3') && kept('runner').includes('b#3'), kept('runner').join(','));
  assert.ok(kept('harness').includes('a#3') && !kept('harness').includes('b#3'), kept('harness').join(','));
});

test('runner ranking: a type over its cap with only protected blocks loses the lowest; the harness keeps them', () => {
  const images = Array.from({ length: 3 }, (_, i) => hit(`img#${i}`, 'image', 3 - i, 0.9 - i * 0.1, i + 1, 700));
  const s: PoolSearch[] = [{ query: 'q', by: 'locator', hits: images }];
  const tight = { ...caps, total: 1_000, image: 800 };
  const runner = buildPool(s, { caps: tight, ranking: 'runner' });
  const harness = buildPool(s, { caps: tight, ranking: 'harness' });
  assert.ok(runner.stats.evicted.image >= 1);
  assert.ok(runner.blocks.filter((b) => b.kind === 'image').reduce((n, b) => n + b.cost, 0) <= tight.image);
  assert.equal(
    runner.blocks.some((b) => b.fragmentId === 'img#2'),
    false,
    'the lowest cosine went',
  );
  assert.equal(harness.stats.evicted.image, 0);
});

test('the agent configurations default to the runner ranking; harness is a setting', () => {
  assert.equal(agentSettings.parse({}).poolRanking, 'runner');
  assert.equal(agentSettings.parse({ poolRanking: 'harness' }).poolRanking, 'harness');
  assert.throws(() => agentSettings.parse({ poolRanking: 'other' }));
});
