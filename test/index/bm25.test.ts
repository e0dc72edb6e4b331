import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Bm25Index, type IdfVariant } from '../../lib/index/bm25';
import { makeRng } from '../../lib/util/rng';
import { nonEmpty } from '../_shared/non-empty';

/** Brute-force Okapi BM25, written from the formula with no shared code. */
function reference(docs: (string[] | null)[], query: string[], k1: number, b: number, idfKind: IdfVariant): Map<number, number> {
  const live = docs.map((d, i) => ({ d, i })).filter((x) => x.d !== null) as { d: string[]; i: number }[];
  const N = live.length;
  const avgdl = live.reduce((s, x) => s + x.d.length, 0) / N;
  const out = new Map<number, number>();
  const df = new Map(query.map((t) => [t, live.filter((x) => x.d.includes(t)).length]));
  for (const { d, i } of live) {
    let s = 0;
    for (const t of query) {
      const n = df.get(t)!;
      if (n === 0) continue;
      const idf = idfKind === 'lucene' ? Math.log(1 + (N - n + 0.5) / (n + 0.5)) : Math.max(0, Math.log((N - n + 0.5) / (n + 0.5)));
      const tf = d.filter((x) => x === t).length;
      if (tf === 0) continue;
      s += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * d.length) / avgdl));
    }
    if (s > 0) out.set(i, s);
  }
  return out;
}

function refTop(scores: Map<number, number>, k: number): [number, number][] {
  return [...scores.entries()].sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, k);
}

/** A Zipfian corpus: a few very common terms (long postings: pruning matters) and many rare ones. */
function corpus(nDocs: number, seed: string): string[][] {
  const rng = makeRng(seed);
  const vocab = Array.from({ length: 400 }, (_, i) => `w${i}`);
  const zipf = () => vocab[Math.min(vocab.length - 1, Math.floor(Math.exp(rng.next() * Math.log(vocab.length))) - 1)];
  return Array.from({ length: nDocs }, () => Array.from({ length: rng.int(3, 40) }, zipf));
}

for (const [k1, b, idf] of [
  [1.2, 0.75, 'lucene'],
  [0.9, 0.4, 'robertson'],
  [2.0, 1.0, 'lucene'],
  [1.5, 0, 'robertson'],
] as [number, number, IdfVariant][]) {
  test(`bm25 equals a brute-force Okapi BM25 to 1e-9 (k1=${k1}, b=${b}, idf=${idf}), with pruning and removals`, () => {
    const docs: (string[] | null)[] = corpus(1500, `c-${k1}-${b}`);
    const ix = new Bm25Index({ k1, b, idf, variantWeight: 0 });
    docs.forEach((d, i) => ix.add(i, d!));
    const rng = makeRng(`q-${k1}`);
    // Remove a tenth of the documents: N, n_t and avgdl must follow.
    for (let i = 0; i < 150; i++) {
      const s = rng.int(0, docs.length - 1);
      ix.remove(s);
      docs[s] = null;
    }
    for (let qi = 0; qi < 40; qi++) {
      const q = Array.from({ length: rng.int(1, 6) }, () => (rng.bool(0.5) ? `w${rng.int(0, 5)}` : `w${rng.int(6, 399)}`));
      if (qi % 7 === 0) q.push(q[0]); // repeated query term counts twice
      const ref = reference(docs, q, k1, b, idf);
      for (const k of [1, 5, 50]) {
        const got = ix.search(ix.resolveQuery(q), k);
        const want = refTop(ref, k);
        assert.equal(got.slots.length, want.length, `query ${q} k=${k}`);
        for (let i = 0; i < want.length; i++) {
          assert.ok(Math.abs(got.scores[i] - want[i][1]) < 1e-9, `score ${got.scores[i]} vs ${want[i][1]} (query ${q}, k=${k}, rank ${i})`);
          // Same document unless two scores tie within float noise.
          if (got.slots[i] !== want[i][0]) assert.ok(Math.abs(ref.get(got.slots[i])! - want[i][1]) < 1e-9);
        }
      }
      // Single-document scoring (used by fusion) agrees too.
      for (const [slot, s] of [...ref.entries()].slice(0, 10)) assert.ok(Math.abs(ix.scoreSlot(ix.resolveQuery(q), slot) - s) < 1e-9);
    }
  });
}

test('pruning skips most postings of common terms for a small k, without changing the result', () => {
  const docs = corpus(3000, 'prune');
  const ix = new Bm25Index({ variantWeight: 0 });
  docs.forEach((d, i) => ix.add(i, d));
  const q = ['w0', 'w1', 'w2', 'w350', 'w377'];
  const small = ix.search(ix.resolveQuery(q), 3);
  const full = ix.search(ix.resolveQuery(q), 3000);
  assert.deepEqual(Array.from(small.slots), Array.from(full.slots.slice(0, 3)));
  assert.ok(small.visited < full.visited / 2, `visited ${small.visited} vs ${full.visited}`);
});

test('filter mask restricts the ranking; statistics stay corpus-wide', () => {
  const docs = corpus(300, 'filter');
  const ix = new Bm25Index();
  docs.forEach((d, i) => ix.add(i, d));
  const mask = new Uint8Array(300);
  for (let i = 0; i < 300; i += 3) mask[i] = 1;
  const q = ix.resolveQuery(['w0', 'w10', 'w40']);
  const all = ix.search(q, 300);
  const only = ix.search(q, 300, mask);
  assert.ok(only.slots.length > 0);
  assert.ok(nonEmpty(Array.from(only.slots)).every((s) => s % 3 === 0));
  const expected = Array.from(all.slots).filter((s) => s % 3 === 0);
  assert.deepEqual(Array.from(only.slots), expected);
});

test('unknown terms score nothing; spelling variants (flexsearch phonetic key) stand in when enabled', () => {
  const ix = new Bm25Index({ variantWeight: 0.5 });
  ix.add(0, ['nicki', 'minaj', 'singer']);
  ix.add(1, ['michael', 'curtiz', 'director']);
  ix.add(2, ['film', 'director', 'born']);
  const q = ix.resolveQuery(['menaj', 'zzzz']);
  assert.deepEqual(q.unknown, ['zzzz']);
  const r = ix.search(q, 3);
  assert.deepEqual(Array.from(r.slots), [0]);
  const off = new Bm25Index({ variantWeight: 0 });
  off.add(0, ['nicki', 'minaj']);
  off.add(1, ['other', 'words']);
  assert.equal(off.search(off.resolveQuery(['menaj']), 3).slots.length, 0);
});

test('state export/import reproduces scores exactly', () => {
  const docs = corpus(200, 'state');
  const ix = new Bm25Index({ k1: 1.1, b: 0.6 });
  docs.forEach((d, i) => ix.add(i, d));
  ix.remove(5);
  const copy = Bm25Index.fromState(ix.exportState());
  const q = ['w0', 'w3', 'w100'];
  assert.deepEqual(Array.from(copy.search(copy.resolveQuery(q), 20).scores), Array.from(ix.search(ix.resolveQuery(q), 20).scores));
  assert.equal(copy.liveCount, 199);
});
