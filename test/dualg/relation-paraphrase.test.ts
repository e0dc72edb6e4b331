/**
 * Relation-word paraphrase of generated training questions (issue 18): deterministic by seed, a replacement is a
 * near neighbour that the hop's passage does not contain (nor the word's own stem), gold unchanged. A tiny
 * hand-made word-vector table stands in for GloVe so the test stays hermetic and fast.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildDualGraph } from '../../lib/dualg/graph/build';
import { sourceFromPassages } from '../../lib/dualg/graph/source';
import { generateQueries } from '../../lib/dualg/train/generated-queries';
import { paraphraseLabel, relationParaphraser } from '../../lib/dualg/train/relation-paraphrase';
import type { GloveTable } from '../../lib/index/embedders/glove-table';
import type { DualGraph } from '../../lib/dualg/graph/types';
import { makeRng } from '../../lib/util/rng';
import { stem, tokens } from '../../lib/util/text-rules';
import { kfInProcess as kf } from '../_shared/cli-in-process';
import { FILM_PASSAGES } from './film-world.helper';

// Invented vectors: each relation word has near neighbours, one sharing its stem, one far away.
const VECTORS: Record<string, number[]> = {
  directed: [1, 0, 0, 0],
  directs: [0.99, 0.05, 0, 0],
  helmed: [0.95, 0.1, 0, 0],
  drama: [0.9, 0, 0.2, 0],
  born: [0, 1, 0, 0],
  native: [0.1, 0.95, 0, 0],
  located: [0, 0, 1, 0],
  situated: [0, 0.1, 0.97, 0],
  banana: [0, 0, 0, 1],
};

function table(): GloveTable {
  const words = Object.keys(VECTORS);
  const dim = 4;
  const vectors = new Float32Array(words.length * dim);
  words.forEach((w, i) => vectors.set(VECTORS[w], i * dim));
  return { dim, index: new Map(words.map((w, i) => [w, i])), vectors, rank: Int32Array.from(words.map((_, i) => i)), size: words.length };
}

const NEW_WORDS = new Set(['helmed', 'drama', 'native', 'situated']);

test('paraphraser: a replacement is a near neighbour absent from the passage, never the same stem; share 0 keeps the words', () => {
  const p = relationParaphraser(table(), { share: 1 });
  const seen = new Set<string>();
  for (let s = 0; s < 30; s++) {
    const out = p('directed', 'A drama film directed by Someone.', makeRng(s));
    assert.ok(out === 'helmed', `"directed" in a passage with "drama" became "${out}" (only "helmed" is near, new and another stem)`);
    seen.add(p('directed', 'A film directed by Someone.', makeRng(s)));
  }
  assert.deepEqual([...seen].sort(), ['drama', 'helmed'], 'both neighbours are drawn when the passage has neither');
  assert.equal(p('born in', 'born in Velmora', makeRng(1)), 'native in', 'a word with no neighbour ("in") is kept');
  assert.equal(p('banana', '', makeRng(1)), 'banana', 'no neighbour above the cosine floor: kept');
  const none = relationParaphraser(table(), { share: 0 });
  assert.equal(none('directed', '', makeRng(1)), 'directed');
  assert.match(paraphraseLabel(0.5), /50% of hops/);
});

const PASSAGES = FILM_PASSAGES;

test('generated queries with paraphrase: deterministic, same gold and edges, reworded hops use words not in their passage', async () => {
  const g: DualGraph = await buildDualGraph(sourceFromPassages(PASSAGES, 'paraphrase-fixture'));
  const text = (d: number) => PASSAGES.find((p) => p.id === g.docs[d].id)?.text;
  const para = relationParaphraser(table(), { share: 0.5 });
  const plain = generateQueries(g, text, makeRng(5), 40);
  const a = generateQueries(g, text, makeRng(5), 40, para);
  const b = generateQueries(g, text, makeRng(5), 40, relationParaphraser(table(), { share: 0.5 }));
  assert.deepEqual(a, b, 'same seed, same paraphrased queries');
  assert.deepEqual(
    a.map((q) => [q.id, q.goldDocs, q.seeds, q.hidden, q.edges]),
    plain.map((q) => [q.id, q.goldDocs, q.seeds, q.hidden, q.edges]),
    'paraphrase changes words only: gold, seeds and edges are those of the plain queries',
  );
  let reworded = 0;
  a.forEach((q, i) => {
    const before = new Set(tokens(plain[i].text));
    const added = tokens(q.text).filter((w) => !before.has(w));
    if (added.length) reworded++;
    for (const w of added) {
      assert.ok(NEW_WORDS.has(w), `${q.id}: "${w}" is not a neighbour from the table (${q.text})`);
      // The word was drawn for some hop whose passage lacks it: at least one gold passage must lack its stem.
      const lacking = q.edges.some((e) => !new Set(tokens(text(e.doc) ?? '').map(stem)).has(stem(w)));
      assert.ok(lacking, `${q.id}: "${w}" is in every passage of the query`);
    }
  });
  assert.ok(reworded > 0 && reworded < a.length, `some but not all queries reworded (${reworded} of ${a.length})`);
});

test('kf train gnn: --paraphrase is in its usage and a share outside [0, 1] is refused, naming the option', async () => {
  const help = await kf(['train', 'gnn', '--help']);
  assert.equal(help.code, 0, help.err);
  assert.match(help.out + help.err, /--paraphrase/);
  const bad = await kf(['train', 'gnn', '--bench', '2wiki', '--index', '/nonexistent', '--paraphrase', '1.5']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.out + bad.err, /paraphrase[\s\S]*between 0 and 1/);
});
