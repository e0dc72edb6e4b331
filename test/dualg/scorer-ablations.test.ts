/**
 * No silent substitutes in DualG-MRAG: the scorer is explicit and named in every result, a GNN retriever
 * without a checkpoint refuses naming the command that trains one, and each ablation never reads the part it
 * removes (the removed part is a proxy that fails on any read).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Fragment } from '../../lib/corpus/types';
import type { KnowledgeBase } from '../../lib/pipeline/knowledge-base';
import { buildDualGraph, type GraphSource } from '../../lib/dualg/graph/build';
import { DualgSearcher, SEARCHER_DEFAULTS, type SearcherParts } from '../../lib/dualg/query/searcher';
import { register as registerRetrievers, scorerOf, searcherParts } from '../../lib/dualg/retriever';
import { getRetriever } from '../../lib/pipeline/retrievers';
import { buildIndex } from '../../lib/index/build';
import { openIndex } from '../../lib/index/open';
import { engineKnowledgeBase } from '../../lib/pipeline/index-view';
import { ownScratch } from '../_shared/scratch';
import { nonEmpty } from '../_shared/non-empty';
import { acmeRevenueTable } from './acme-world.helper';
import { hybridHit } from './hybrid-hit.helper';

const FRAGS: Fragment[] = [
  { id: 'r#0', docId: 'r', kind: 'text', text: 'Annual figures of Acme Corp and Globex.', section: [], ordinal: 0, attached: [] },
  acmeRevenueTable(1),
  { id: 'acme#0', docId: 'acme', kind: 'text', text: 'Acme Corp is a company founded by Wile Coyote.', section: [], ordinal: 0, attached: [] },
];

const SOURCE: GraphSource = {
  id: 'abl',
  fingerprint: 'fp-abl',
  documents: () => [
    { id: 'r', title: 'Report' },
    { id: 'acme', title: 'Acme Corp' },
  ],
  fragmentsOf: (d) => FRAGS.filter((f) => f.docId === d),
};

/** An object every read of which fails the test: what an ablation removed must never be touched. */
function untouchable<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get(_t, prop) {
      throw new Error(`${what} was read (.${String(prop)}) although the ablation removed it`);
    },
  });
}

/** A knowledge base whose search fails: without the macro graph no hybrid fallback may be asked for. */
function kbWithoutSearch(): KnowledgeBase {
  return {
    search: () => {
      throw new Error('the hybrid was searched although the ablation removed the fallback');
    },
    fragment: (id: string) => FRAGS.find((f) => f.id === id),
  } as unknown as KnowledgeBase;
}

function hybridKb(): KnowledgeBase {
  return {
    async search(query: string) {
      const hits = FRAGS.map(hybridHit);
      return { query, retriever: 'hybrid', hits, docs: hits.map((h) => ({ docId: h.docId, score: h.score })), timings: { totalMs: 0 } };
    },
    fragment: (id: string) => FRAGS.find((f) => f.id === id),
  } as unknown as KnowledgeBase;
}

test('w/o Macro: micro matches rank alone; the macro view, the GNN and the hybrid are never read', async () => {
  const full = searcherParts(await buildDualGraph(SOURCE));
  const parts: SearcherParts = { ...full, view: untouchable('the macro graph view') };
  const searcher = new DualgSearcher(parts, { ...SEARCHER_DEFAULTS, macro: false }, 'dualg-no-macro');
  assert.equal(searcher.identity.scorer, 'none');
  assert.match(searcher.identity.label, /without the macro graph/);
  const r = await searcher.search('What was the revenue of Acme Corp?', { k: 3 }, kbWithoutSearch());
  assert.deepEqual(
    nonEmpty(r.hits, 'micro hits').map((h) => h.fragmentId),
    ['r#1'],
    'the table the micro fact came from, nothing filled in',
  );
  assert.equal(r.system?.label, searcher.identity.label);
  const none = await searcher.search('Who founded the company of Wile Coyote?', { k: 3 }, kbWithoutSearch());
  assert.equal(none.hits.length, 0, 'no micro match: nothing, where the full method would fall back to hybrid');
  assert.match(none.notes!.join(' '), /no micro fact matched/);
});

test('w/o Micro: the micro index and the visual split are never read; the label says what was removed', async () => {
  const full = searcherParts(await buildDualGraph(SOURCE));
  const parts: SearcherParts = { ...full, micro: untouchable('the micro index'), visualDocs: untouchable('the visual documents of the micro graph') };
  const searcher = new DualgSearcher(parts, { ...SEARCHER_DEFAULTS, micro: false }, 'dualg-no-micro');
  const r = await searcher.search('Who founded Acme Corp?', { k: 2 }, hybridKb());
  assert.equal(nonEmpty(r.hits, 'hits')[0].docId, 'acme');
  assert.equal(r.system?.scorer, 'heuristic');
  assert.match(String(r.system?.label), /^scorer heuristic \(untrained\); without the micro graph$/);
});

test('the scorer is explicit: fixed by the name or setting scorer; contradictions and unknown scorers refused', () => {
  assert.equal(scorerOf({ name: 'dualg', dflt: 'heuristic' }, undefined), 'heuristic');
  assert.equal(scorerOf({ name: 'dualg', dflt: 'heuristic' }, 'ppr'), 'ppr');
  assert.equal(scorerOf({ name: 'dualg-gnn', fixed: 'gnn', dflt: 'gnn' }, 'gnn'), 'gnn');
  assert.throws(() => scorerOf({ name: 'dualg-gnn', fixed: 'gnn', dflt: 'gnn' }, 'heuristic'), /always scores with gnn/);
  assert.throws(() => scorerOf({ name: 'dualg', dflt: 'heuristic' }, 'gcn'), /scorer must be one of gnn, heuristic, ppr/);
});

test('a searcher asked for the GNN without one refuses instead of scoring with the heuristic', async () => {
  const parts = searcherParts(await buildDualGraph(SOURCE));
  assert.throws(
    () => new DualgSearcher(parts, { ...SEARCHER_DEFAULTS, scorer: 'gnn' }, 'dualg-gnn'),
    (e: Error & { code?: string }) => e.code === 'gnn_checkpoint_missing',
  );
});

test('retriever dualg-gnn without a checkpoint fails at load naming kf train gnn; dualg names its heuristic scorer', async () => {
  const dir = ownScratch('kf-dualg-scorer-');
  const old = process.env.KF_GNN_CHECKPOINTS;
  process.env.KF_GNN_CHECKPOINTS = path.join(dir, 'no-checkpoints');
  try {
    const corpus = path.join(dir, 'corpus');
    fs.mkdirSync(corpus);
    fs.writeFileSync(path.join(corpus, 'acme.md'), '# Acme Corp\n\nAcme Corp is a company founded by Wile Coyote in Arizona.\n');
    fs.writeFileSync(path.join(corpus, 'arizona.md'), '# Arizona\n\nArizona is a state of the United States.\n');
    const indexDir = path.join(dir, 'index');
    await buildIndex({ corpusDir: corpus, outDir: indexDir, embedder: 'hash', options: { ingest: { ocr: 'off' }, hashDim: 64 } });
    const idx = await openIndex(indexDir);
    const kb = engineKnowledgeBase(idx, { forced: { withContext: false } });
    registerRetrievers();
    const settings = { artifacts: path.join(dir, 'artifacts') };
    await assert.rejects(getRetriever('dualg-gnn')!.create({ kb, indexDir, settings }), (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, 'gnn_checkpoint_missing');
      assert.match(`${e.message} ${e.hint}`, new RegExp(`kf train gnn --index ${indexDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      return true;
    });
    const lines: string[] = [];
    const search = await getRetriever('dualg')!.create({ kb, indexDir, settings, log: (l) => lines.push(l) });
    const r = await search('Where was the company of Wile Coyote founded?', { k: 2 }, kb);
    assert.equal(r.system?.scorer, 'heuristic');
    assert.match(lines.join('\n'), /dualg: scorer heuristic \(untrained\)/);
  } finally {
    if (old === undefined) delete process.env.KF_GNN_CHECKPOINTS;
    else process.env.KF_GNN_CHECKPOINTS = old;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
