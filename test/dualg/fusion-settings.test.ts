/**
 * Two retriever settings k-fold can choose (lib/dualg/kfold.ts, the "around" grid): `graphFirst = 0` puts graph
 * and hybrid evidence on one scale (the hybrid's best passage can outrank one the graph barely reached), and
 * `heuristic.relIdf` weighs the question's relation words by their inverse document frequency.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildDualGraph } from '../../lib/dualg/graph/build';
import { relationWords } from '../../lib/dualg/query/relation-words';
import { DualgSearcher, SEARCHER_DEFAULTS } from '../../lib/dualg/query/searcher';
import { searcherParts } from '../../lib/dualg/retriever';
import { searcherSettings } from '../../lib/dualg/query/searcher-settings';
import type { KnowledgeBase } from '../../lib/pipeline/knowledge-base';
import { ACME_FRAGMENTS, acmeSource } from './acme-world.helper';

const FRAGS = ACME_FRAGMENTS;
const SOURCE = acmeSource('fs', 'fp-fusion-settings');

/** A hybrid that ranks only the passage the graph never reaches. */
const kb = {
  async search(query: string) {
    const hit = { fragmentId: 'road#0', docId: 'road', kind: 'text', rank: 1, score: 1, scores: {}, via: 'hybrid', text: FRAGS[2].text, media: [] };
    return { query, retriever: 'hybrid', hits: [hit], docs: [{ docId: 'road', score: 1 }], timings: { totalMs: 0 } };
  },
  fragment: (id: string) => FRAGS.find((f) => f.id === id),
} as unknown as KnowledgeBase;

test('graphFirst: 1 keeps every graph-reached passage ahead of the hybrid; 0 lets the hybrid best pass the weakest', async () => {
  const parts = searcherParts(await buildDualGraph(SOURCE));
  const q = 'Where was Acme Corp founded?';
  const order = async (raw: Record<string, unknown>) =>
    (await new DualgSearcher(parts, searcherSettings(raw, 'heuristic'), 'dualg').search(q, { k: 3 }, kb)).hits.map((h) => h.docId);
  assert.equal(SEARCHER_DEFAULTS.graphFirst, 1, 'the shipped default: the hybrid only fills up');
  assert.deepEqual(await order({}), ['acme', 'arizona', 'road']);
  assert.deepEqual(await order({ graphFirst: 0, hybrid: 0.25 }), ['acme', 'road', 'arizona']);
});

test('relIdf: relation words weigh by inverse document frequency, closeness to the names kept', () => {
  const q = 'Which river flows through the capital of Acme?';
  const covered = new Set([7]);
  const plain = relationWords(q, covered);
  const df: Record<string, number> = { riv: 1, flow: 50, capital: 5 };
  const idf = (st: string) => Math.log(1 + 100 / (df[st] ?? 1));
  const weighted = relationWords(q, covered, { idf });
  assert.equal(weighted.length, plain.length);
  assert.deepEqual(
    plain.map((w) => w.stems[0]),
    ['riv', 'flow', 'capital'],
  );
  assert.ok(Math.abs(weighted.reduce((a, w) => a + w.weight, 0) - 1) < 1e-9, 'weights still sum to 1');
  const ratio = (ws: typeof plain, a: number, b: number) => ws[a].weight / ws[b].weight;
  // Each word's weight is its closeness weight times its idf: the ratios move by exactly the idf ratio.
  for (let i = 1; i < plain.length; i++)
    assert.ok(Math.abs(ratio(weighted, 0, i) - ratio(plain, 0, i) * (idf(plain[0].stems[0]) / idf(plain[i].stems[0]))) < 1e-9);
});
