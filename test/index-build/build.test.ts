/**
 * The build pipeline end to end: the demo world (every document and page
 * accounted for, ledger, manifest, openIndex), incremental builds (add, change,
 * remove), bad documents reported while the rest builds, the LLM path with fake
 * models (tokens in the ledger, typed relations, nothing redone on a rebuild),
 * passages and the content-hash index cache.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildIndex, ensureIndex, type BuildProgress } from '../../lib/index/build';
import { openIndex, type IndexModels } from '../../lib/index/open';
import { HashingEmbedder } from '../../lib/index/embedders/hashing';
import { tinyDemoWorld } from '../_shared/scratch';
import type { ChatModel, Stage } from '../../lib/model-api/types';
import { DOCS, writeCorpus } from './corpus';
import { tempDir } from './helpers';
import { fakeModel } from '../_shared/fake-model';
import PDFDocument from 'pdfkit';
import { createModelRouter } from '../../lib/models/router';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { nonEmpty } from '../_shared/non-empty';

const FAST = { ingest: { ocr: 'off' as const }, hashDim: 64 };

function processedIds(events: BuildProgress[]): string[] {
  return events
    .filter((e) => e.phase === 'document' && e.work === 'processed')
    .map((e) => e.docId!)
    .sort();
}

test('demo world: every file and page accounted for, ledger and manifest written, openIndex searches; a rebuild reuses everything', async () => {
  const world = await tinyDemoWorld();
  const corpus = path.join(world.dir, 'corpus');
  const out = tempDir();
  const r = await buildIndex({ corpusDir: corpus, outDir: out, embedder: 'hash', options: { ...FAST, benchmark: 'demo' } });
  const files = fs.readdirSync(corpus).filter((f) => /\.(md|html|pdf|txt)$/.test(f));
  assert.equal(r.report.documents.length, files.length, 'one report entry per document file');
  assert.equal(r.report.summary.ok + r.report.summary.error + r.report.summary.duplicate + r.report.summary.skipped, files.length);
  for (const d of r.report.documents) {
    if (d.status !== 'ok') assert.ok(d.reason, `${d.id} has a reason`);
    if (d.format === 'pdf' && d.status === 'ok') {
      const p = d.pages!;
      assert.ok(p.total > 0);
      assert.equal(p.text + p.ocr + p.empty + p.error, p.total, `${d.id}: every page accounted for`);
      assert.equal(d.pageSources!.length, p.total);
    }
  }
  const s = r.report.summary;
  assert.ok(s.ok >= files.length - 2, `most demo documents index (${JSON.stringify(s)})`);
  assert.ok(s.fragments.image > 0 && s.fragments.table > 0 && s.points > s.fragments.total / 2);
  assert.ok(s.relations.fragmentEdges > 0);
  // Ledger: Appendix D fields, offline labelled, Markdown table next to the index.
  const l = r.ledger;
  assert.equal(l.index.documents, s.ok);
  assert.equal(l.index.embeddings, s.fragments.total + s.points);
  assert.equal(l.index.images, s.fragments.image);
  assert.equal(l.index.tokens.total.total, 0);
  assert.equal(l.backends.extractionText, 'offline');
  assert.ok(l.index.markdownChars > 1000 && l.index.wallSeconds > 0);
  const md = fs.readFileSync(path.join(out, 'cost-ledger.md'), 'utf8');
  assert.match(md, /\| Corpus \| Source \| Docs \| Markdown chars \| Images \| OCR pages \| Embeddings \|/);
  assert.match(md, /offline/);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(out, 'build-report.json'), 'utf8')).summary, s);
  // Manifest.
  const m = r.manifest;
  assert.equal(m.embedder.id, 'hash-64');
  assert.equal(m.offline, true);
  assert.equal(m.seed, 'kf-index');
  assert.ok('commit' in m.git);
  assert.deepEqual(Object.keys(m.backends).sort(), ['caption', 'embedding', 'extraction', 'ingest', 'relations']);
  assert.equal(m.counts.documents, s.ok);
  // Open and search.
  const idx = await openIndex(out);
  assert.equal(idx.manifest.generation, r.generation);
  assert.equal(idx.documents().length, s.ok);
  const doc = idx.documents().find((d) => d.format === 'pdf') ?? idx.documents()[0];
  assert.equal(idx.docTitle(doc.id), doc.title);
  const res = await idx.retriever.search(doc.title, { topk: 5, mode: 'hybrid' });
  assert.ok(res.hits.length > 0);
  assert.equal(res.hits[0].docId, doc.id);
  assert.ok(idx.fragment(res.hits[0].fragmentId));
  const only = await idx.retrieverFor({ id: 'q', doc: doc.id }).search('founded year revenue', { topk: 8 });
  assert.ok(nonEmpty(only.hits).every((h) => h.docId === doc.id));
  assert.ok(idx.knowledgePoints().length === s.points);
  assert.equal(idx.relations().length, s.relations.pointEdges);
  assert.throws(() => idx.retrieverFor({ id: 'q2', doc: 'no-such-doc' }), /not in the index/);
  // Rebuild with nothing changed: no document processed, nothing embedded, same relations.
  const events: BuildProgress[] = [];
  const r2 = await buildIndex({
    corpusDir: corpus,
    outDir: out,
    embedder: 'hash',
    options: { ...FAST, benchmark: 'demo', onProgress: (e) => void events.push(e) },
  });
  assert.deepEqual(processedIds(events), []);
  assert.equal(r2.report.summary.unchanged, s.ok);
  assert.equal(r2.ledger.thisBuild.embeddings, 0);
  assert.equal(r2.ledger.index.embeddings, l.index.embeddings);
  assert.deepEqual(r2.report.summary.relations, s.relations);
  assert.equal(r2.generation, 'build-000002');
  assert.deepEqual(
    fs.readdirSync(out).filter((n) => /^build-\d+$/.test(n)),
    ['build-000002'],
    'older builds are removed',
  );
});

test('incremental: adding, changing and removing documents processes only the difference', async () => {
  const dir = tempDir();
  const corpus = writeCorpus(path.join(dir, 'corpus'), { 'alpha.md': DOCS['alpha.md'], 'beta.md': DOCS['beta.md'], 'gamma.md': DOCS['gamma.md'] });
  const out = path.join(dir, 'index');
  const e1: BuildProgress[] = [];
  const r1 = await buildIndex({ corpusDir: corpus, outDir: out, embedder: 'hash', options: { ...FAST, onProgress: (e) => void e1.push(e) } });
  assert.deepEqual(processedIds(e1), ['alpha', 'beta', 'gamma']);
  assert.equal(r1.report.summary.added, 3);

  fs.writeFileSync(path.join(corpus, 'delta.md'), DOCS['delta.md']);
  fs.writeFileSync(path.join(corpus, 'beta.md'), DOCS['beta.md'].replace('Beta Rail was founded in 1923.', 'Beta Rail was founded in 1931 by Henrik Sollen.'));
  fs.unlinkSync(path.join(corpus, 'gamma.md'));
  const e2: BuildProgress[] = [];
  const r2 = await buildIndex({ corpusDir: corpus, outDir: out, embedder: 'hash', options: { ...FAST, onProgress: (e) => void e2.push(e) } });
  assert.deepEqual(processedIds(e2), ['beta', 'delta'], 'only the added and the changed document are processed');
  const s = r2.report.summary;
  assert.deepEqual([s.added, s.changed, s.unchanged, s.removed, s.processed, s.reused], [1, 1, 1, 1, 2, 1]);
  assert.deepEqual(r2.report.removed, ['gamma']);
  assert.equal(r2.ledger.thisBuild.documents, 2);
  assert.equal(r2.ledger.index.documents, 3);

  const idx = await openIndex(out);
  assert.deepEqual(
    idx.documents().map((d) => d.id),
    ['alpha', 'beta', 'delta'],
  );
  const hit = await idx.retriever.search('Henrik Sollen founded Beta Rail', { topk: 1, mode: 'bm25' });
  assert.match(hit.hits[0].text, /1931 by Henrik Sollen/);
  const old = await idx.retriever.search('harbour master Tomas Eklund', { topk: 3, mode: 'bm25' });
  assert.ok(
    old.hits.every((h) => h.docId !== 'gamma'),
    'a removed document is gone (its words may match nothing at all)',
  );
  assert.ok(nonEmpty(idx.knowledgePoints()).every((p) => p.docId !== 'gamma'));
  assert.ok(nonEmpty(idx.relations()).every((r) => !r.from.startsWith('gamma') && !r.to.startsWith('gamma')));

  // The incremental result equals a from-scratch build of the same corpus (same ids, points, relations, rankings).
  const fresh = await buildIndex({ corpusDir: corpus, outDir: path.join(dir, 'fresh'), embedder: 'hash', options: FAST });
  const idx2 = await openIndex(fresh.outDir);
  assert.deepEqual(idx2.engine.fragmentIds().sort(), idx.engine.fragmentIds().sort());
  assert.deepEqual(idx2.knowledgePoints(), idx.knowledgePoints());
  assert.deepEqual(idx2.relations(), idx.relations());
  for (const q of ['paper maker', 'freight trains to the port', 'bank loans']) {
    const a = await idx.retriever.search(q, { topk: 5 });
    const b = await idx2.retriever.search(q, { topk: 5 });
    assert.deepEqual(
      a.hits.map((h) => [h.fragmentId, h.score.toFixed(6)]),
      b.hits.map((h) => [h.fragmentId, h.score.toFixed(6)]),
    );
  }
});

function writePdf(file: string, text: string): Promise<void> {
  const doc = new PDFDocument({ info: { CreationDate: new Date(0) } });
  const out = fs.createWriteStream(file);
  doc.pipe(out);
  doc.fontSize(12).text(text);
  doc.end();
  return new Promise((resolve) => out.on('finish', () => resolve()));
}

test('bad documents are reported with their reason while the rest builds; nothing already indexed is lost', async () => {
  const dir = tempDir();
  const corpus = writeCorpus(path.join(dir, 'corpus'), { 'alpha.md': DOCS['alpha.md'], 'beta.md': DOCS['beta.md'] });
  await writePdf(path.join(corpus, 'report.pdf'), 'The annual report of Quessel Shipping states a profit of 4.2 million crowns in 2021.');
  const out = path.join(dir, 'index');
  const r1 = await buildIndex({ corpusDir: corpus, outDir: out, embedder: 'hash', options: FAST });
  assert.equal(r1.report.summary.ok, 3);
  writeCorpus(corpus, {
    'broken.pdf': '%PDF-1.7\nthis is not really a pdf\n',
    'empty.md': '   \n',
    'a-copy-of-alpha.md': DOCS['alpha.md'],
    'gamma.md': DOCS['gamma.md'],
  });
  fs.writeFileSync(path.join(corpus, 'beta.html'), '<p>same id as beta.md</p>');
  fs.writeFileSync(path.join(corpus, 'report.pdf'), '%PDF-1.4\n%%EOF garbage replacing a good file');
  const r = await buildIndex({ corpusDir: corpus, outDir: out, embedder: 'hash', options: FAST });
  const by = new Map(r.report.documents.map((d) => [d.source, d]));
  assert.equal(by.get('alpha.md')!.status, 'ok');
  assert.equal(by.get('gamma.md')!.status, 'ok');
  assert.equal(by.get('broken.pdf')!.status, 'error');
  assert.match(by.get('broken.pdf')!.reason!, /broken\.pdf/);
  assert.equal(by.get('empty.md')!.status, 'skipped');
  assert.match(by.get('empty.md')!.reason!, /empty/);
  // The indexed file keeps its place: the new copy (sorted first) is the duplicate, the new colliding id is the error.
  assert.equal(by.get('a-copy-of-alpha.md')!.status, 'duplicate');
  assert.equal(by.get('a-copy-of-alpha.md')!.duplicateOf, 'alpha.md');
  assert.equal(by.get('beta.md')!.status, 'ok');
  assert.equal(by.get('beta.html')!.status, 'error');
  assert.match(by.get('beta.html')!.reason!, /also the id of beta\.md/);
  // A previously indexed document that breaks keeps its indexed version, reported as an error.
  const rep = by.get('report.pdf')!;
  assert.equal(rep.status, 'error');
  assert.equal(rep.keptPrevious, true);
  assert.match(rep.reason!, /previously indexed version is kept/);
  const idx = await openIndex(out);
  assert.deepEqual(
    idx.documents().map((d) => d.id),
    ['alpha', 'beta', 'gamma', 'report'],
  );
  const hit = await idx.retriever.search('Quessel Shipping profit', { topk: 1, mode: 'bm25' });
  assert.equal(hit.hits[0].docId, 'report');
  assert.equal(r.report.summary.error, 3);
  const text = fs.readFileSync(path.join(out, 'build-report.json'), 'utf8');
  assert.match(text, /not really a pdf|broken\.pdf/);
});

test('LLM path: fake models for extraction, relation typing and table description; tokens in the ledger; a rebuild calls nothing', async () => {
  const dir = tempDir();
  const corpus = writeCorpus(path.join(dir, 'corpus'), { 'alpha.md': DOCS['alpha.md'], 'beta.md': DOCS['beta.md'], 'delta.md': DOCS['delta.md'] });
  const extraction = fakeModel((req) => {
    const task = req.task as { fragments: { id: string; text: string }[] };
    return JSON.stringify({ points: task.fragments.map((f) => ({ title: `point of ${f.id}`, summary: f.text.split('. ')[0], fragment_id: f.id })) });
  }, 'extract-model');
  const relations = fakeModel((req) => {
    const task = req.task as { pairs: { from: string; to: string }[] };
    return JSON.stringify({ relations: task.pairs.map((p) => ({ from: p.from, to: p.to, type: 'supports' })) });
  }, 'relations-model');
  const caption = fakeModel(() => 'A table of rail routes and their lengths in kilometres.', 'vision-model');
  const byStage: Record<string, ChatModel> = { extraction, relations, caption };
  const models: IndexModels = { forStage: (s: Stage) => byStage[s] ?? fakeModel(() => new Error(`no model for ${s}`)) };
  const out = path.join(dir, 'index');
  const opts = { ...FAST, relations: { minCosine: 0.05 } };
  const r = await buildIndex({ corpusDir: corpus, outDir: out, embedder: new HashingEmbedder(64), models, options: opts });
  assert.ok(extraction.calls.length >= 3 && caption.calls.length === 1 && relations.calls.length >= 1);
  assert.equal(r.manifest.offline, false);
  assert.deepEqual(r.manifest.backends.extraction, { backend: 'scripted', model: 'extract-model' });
  const l = r.ledger.index.tokens;
  assert.equal(l.extractionText.calls, extraction.calls.length + relations.calls.length);
  assert.equal(l.extractionText.total, 120 * (extraction.calls.length + relations.calls.length));
  assert.equal(l.extractionMultimodal.total, 120);
  assert.equal(l.preprocessing.total, 0);
  assert.equal(l.total.total, l.extractionText.total + l.extractionMultimodal.total);
  const idx = await openIndex(out);
  assert.ok(nonEmpty(idx.knowledgePoints()).every((p) => p.by === 'llm'));
  assert.ok(idx.relations().length > 0 && idx.relations().every((x) => x.type === 'supports' && x.by === 'llm'));
  assert.equal(r.report.summary.relations.typed, idx.relations().length);
  const table = idx.engine.fragmentsOf('beta').find((f) => f.kind === 'table')!;
  assert.equal(table.describedBy, 'vlm');
  assert.match(table.text, /rail routes/);
  // Rebuild: documents reused, relation typings come from the cache: no model call, no tokens this build.
  const before = [extraction.calls.length, relations.calls.length, caption.calls.length];
  const r2 = await buildIndex({ corpusDir: corpus, outDir: out, embedder: new HashingEmbedder(64), models, options: opts });
  assert.deepEqual([extraction.calls.length, relations.calls.length, caption.calls.length], before);
  assert.equal(r2.ledger.thisBuild.tokens.total.total, 0);
  assert.equal(r2.ledger.index.tokens.total.total, l.total.total);
  // Adding a document types only the new pairs.
  fs.writeFileSync(path.join(corpus, 'gamma.md'), DOCS['gamma.md']);
  await buildIndex({ corpusDir: corpus, outDir: out, embedder: new HashingEmbedder(64), models, options: opts });
  const newPairs = relations.calls.slice(before[1]).flatMap((c) => (c.task as { pairs: { from: string; to: string }[] }).pairs);
  assert.ok(newPairs.length > 0 && newPairs.every((p) => p.from.startsWith('gamma') || p.to.startsWith('gamma')), 'only pairs with a new point are typed');
});

test('passages: one document per passage, title searchable; ensureIndex builds once per content and settings', async () => {
  const cacheRoot = tempDir();
  const passages = [
    { id: 'Teutberga', title: 'Teutberga', text: 'She was a queen of Lotharingia by marriage to Lothair II. She was a daughter of Boso the Elder.' },
    { id: 'Lothair II', title: 'Lothair II', text: 'Lothair II was king of Lotharingia from 855 until his death in 869.' },
    { id: 'Ermengarde of Tours', title: 'Ermengarde of Tours', text: 'Ermengarde of Tours was the wife of Lothair I. She died on 20 March 851.' },
  ];
  const a = await ensureIndex({ passages, cacheRoot, embedder: 'hash', options: { benchmark: '2wiki' } });
  assert.equal(a.built, true);
  assert.equal(a.result!.report.summary.ok, 3);
  const idx = await openIndex(a.dir);
  const r = await idx.retriever.search('Teutberga', { topk: 1, mode: 'bm25' });
  assert.equal(r.hits[0].docId, 'Teutberga', 'the title takes part in retrieval');
  assert.equal(idx.docTitle('Lothair II'), 'Lothair II');
  const b = await ensureIndex({ passages, cacheRoot, embedder: 'hash', options: { benchmark: '2wiki' } });
  assert.deepEqual([b.built, b.dir], [false, a.dir]);
  const c = await ensureIndex({
    passages: passages.map((p, i) => (i ? p : { ...p, text: p.text + ' She died after 875.' })),
    cacheRoot,
    embedder: 'hash',
    options: { benchmark: '2wiki' },
  });
  assert.equal(c.built, true);
  assert.notEqual(c.dir, a.dir);
  const d = await ensureIndex({ passages, cacheRoot, embedder: 'glove', options: { benchmark: '2wiki' }, outDir: a.dir });
  assert.equal(d.built, true, 'another embedder makes the index stale');
});

test('openai embedder: vectors from the endpoint (scripted server); openIndex needs that embedder again', async (t) => {
  const server = await ScriptedServer.start({ embeddingDim: 16 });
  t.after(() => server.close());
  const router = createModelRouter(
    { stages: { embedding: { backend: 'openai', baseUrl: server.url, model: 'embed-model' } } },
    { env: { OPENAI_API_KEY: 'k' }, cacheMode: 'off' },
  );
  t.after(() => router.close());
  const out = tempDir();
  const passages = [
    { id: 'a', title: 'A', text: 'Alpha Mills makes paper.' },
    { id: 'b', title: 'B', text: 'Beta Rail carries paper to Quessel.' },
  ];
  const r = await buildIndex({ passages, outDir: out, embedder: 'openai', models: router });
  assert.equal(r.manifest.embedder.id, 'openai:embed-model');
  assert.equal(r.manifest.embedder.dim, 16);
  assert.equal(r.manifest.backends.embedding.backend, 'openai');
  assert.equal(r.manifest.backends.extraction.backend, 'offline', 'chat stages without an endpoint stay offline');
  const embedCalls = server.requests.filter((x) => x.kind === 'embeddings').length;
  assert.ok(embedCalls >= 1);
  await assert.rejects(openIndex(out), /embedding model openai:embed-model/);
  const idx = await openIndex(out, { models: router });
  const hits = await idx.retriever.search('paper to Quessel', { topk: 2, mode: 'dense' });
  assert.equal(hits.hits.length, 2);
  // A rebuild reuses the stored vectors: only the dimension probe reaches the endpoint.
  const before = server.requests.filter((x) => x.kind === 'embeddings').length;
  await buildIndex({ passages, outDir: out, embedder: 'openai', models: router });
  assert.ok(server.requests.filter((x) => x.kind === 'embeddings').length - before <= 1);
});
