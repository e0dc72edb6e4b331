/**
 * The typed pool's guarantees (spec job 4) under many random searches, and the
 * paper's point: in one ranked list a table/image hit is evicted by text; in
 * the typed pool it survives in its own sub-pool.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FragmentKind } from '../../lib/corpus/types';
import type { SearchHit } from '../../lib/index/types';
import { buildPool, PAPER_CAPS, type PoolCaps, type PoolSearch } from '../../lib/answer/pool';
import { makeRng } from '../../lib/util/rng';

function hit(id: string, score: number, rank: number, kind: FragmentKind, text: string, extra: Partial<SearchHit> = {}): SearchHit {
  return { fragmentId: id, docId: id.split('#')[0], kind, rank, score, scores: {}, via: 'hybrid', text, section: [], media: [], ...extra };
}

const capOf = (k: FragmentKind, c: PoolCaps) => (k === 'text' ? (c.text ?? Math.max(4000, c.total - 8000)) : c[k]);

test('typed pool: per-type caps never exceeded while an unprotected block is left; protected blocks never evicted (200 random question pools)', () => {
  const rng = makeRng('pool-property');
  const kinds: FragmentKind[] = ['text', 'text', 'text', 'image', 'table', 'example'];
  let trimmedPools = 0;
  let evictions = 0;
  for (let trial = 0; trial < 200; trial++) {
    const searches: PoolSearch[] = [];
    const nSearches = 1 + Math.floor(rng.next() * 6);
    for (let s = 0; s < nSearches; s++) {
      const hits = Array.from({ length: 8 }, (_, i) => {
        const kind = kinds[Math.floor(rng.next() * kinds.length)];
        const id = `d${Math.floor(rng.next() * 40)}#${kind}${Math.floor(rng.next() * 3)}`;
        const text = 'w '.repeat(100 + Math.floor(rng.next() * 500));
        const attached = kind === 'text' && rng.next() < 0.3 ? [{ fragmentId: `${id}-fig`, kind: 'image' as const, caption: 'c '.repeat(50) }] : [];
        return hit(id, Math.round(rng.next() * 100) / 10, i + 1, kind, text, { media: attached });
      });
      searches.push({ query: `q${s}`, by: s ? 'bridge' : 'locator', hits });
    }
    const caps: PoolCaps = { ...PAPER_CAPS, total: 6_000 + Math.floor(rng.next() * 20_000) };
    const pool = buildPool(searches, { caps, textChars: 700 });
    if (pool.stats.trimmed) trimmedPools++;
    // Every block protected in any search (top 3 of its own list, or attached/expanded from one) is kept.
    const protectedIds = new Set<string>();
    for (const s of searches) {
      const own = s.hits
        .filter((h) => h.via !== 'expansion')
        .sort((a, b) => b.score - a.score || a.rank - b.rank)
        .slice(0, 3);
      for (const h of own) {
        protectedIds.add(h.fragmentId);
        for (const m of h.media) protectedIds.add(m.fragmentId);
      }
    }
    const kept = new Set(pool.blocks.map((b) => b.fragmentId));
    for (const id of protectedIds) assert.ok(kept.has(id), `trial ${trial}: protected ${id} kept`);
    for (const k of ['text', 'image', 'table', 'example'] as FragmentKind[]) {
      evictions += pool.stats.evicted[k];
      const blocks = pool.blocks.filter((b) => b.kind === k);
      const used = blocks.reduce((n, b) => n + b.cost, 0);
      if (pool.stats.trimmed)
        assert.ok(
          used <= capOf(k, caps) || blocks.every((b) => b.protected),
          `trial ${trial}: ${k} ${used} > cap ${capOf(k, caps)} with an unprotected block left`,
        );
    }
  }
  assert.ok(trimmedPools > 20 && evictions > 100, `the property was exercised (${trimmedPools} trimmed pools, ${evictions} evictions)`);
});

test('one ranked list evicts a table/image hit in favour of text; the typed pool keeps it', () => {
  // Text outscores media (a caption matches the question less literally): in one ranked list, the media
  // found by the first search are the lowest-scoring blocks when later searches bring more text.
  const para = (i: number) => `paragraph ${i} `.repeat(60);
  const table = hit('tab#0', 2, 4, 'table', 'Table 2: results by year with the value asked for');
  const image = hit('img#0', 1.5, 5, 'image', 'Figure 3: chart of revenue by region');
  const first = [hit('a#0', 10, 1, 'text', para(100)), hit('b#0', 9, 2, 'text', para(101)), hit('c#0', 8, 3, 'text', para(102)), table, image];
  const later = Array.from({ length: 20 }, (_, i) => hit(`t${i}#0`, 7 - i * 0.1, i + 1, 'text', para(i)));
  const searches: PoolSearch[] = [
    { query: 'q1', by: 'locator', hits: first },
    { query: 'q2', by: 'locator', hits: later },
  ];
  const plain = buildPool(searches, { kind: 'ranked', caps: { ...PAPER_CAPS, total: 12_000 }, textChars: 700 });
  const typed = buildPool(searches, { kind: 'typed', caps: { ...PAPER_CAPS, total: 12_000 }, textChars: 700 });
  const ids = (p: ReturnType<typeof buildPool>) => p.blocks.map((b) => b.fragmentId);
  assert.ok(plain.stats.trimmed && typed.stats.trimmed, 'both pools are over their cap');
  assert.ok(!ids(plain).includes('tab#0') && !ids(plain).includes('img#0'), 'one ranked list: the table and the image are ranked out by text');
  assert.ok(ids(typed).includes('tab#0') && ids(typed).includes('img#0'), 'typed pool: both survive in their own sub-pools');
  assert.ok(typed.stats.evicted.text > 0, 'text paid for it');
  assert.match(typed.text, /\[fig \d+\] table · id=tab#0/);
});
