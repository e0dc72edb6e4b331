/**
 * `kf serve kb` over real HTTP on loopback (the CLI in a child process):
 * - the harness's remote view reading a served index equals the local view (search, lookups, overview,
 *   media context; scores on the API's 0-10 scale);
 * - every endpoint answers the fields the released runner reads;
 * - the key (426 / 401 / 403), percent-encoded and plain runner ids;
 * - fragment ids served in the hosted form (`frag_<hex>`, what the runner's evidence pool recognises),
 *   taken back by every endpoint, and the harness's own ids for its remote view (`x-kf-ids: harness`);
 * - one package per document from a runner-layout map, documents with dots in their names whole, and
 *   `--kb remote:per-document` routing each question's view to its document's package;
 * - the released runner's own client (kfbench.kb_client, from ../shared/reference/knowforge-bench at run
 *   time) calls every endpoint without an error (skipped with the reason when it or python3 is absent).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openIndex } from '../../lib/index/open';
import { engineKnowledgeBase } from '../../lib/pipeline/index-view';
import { RemoteKbClient } from '../../lib/remote-kb/client';
import { RemoteKnowledgeBase } from '../../lib/remote-kb/knowledge-base';
import { openRemoteKb, remoteKbUuid } from '../../lib/remote-kb/open';
import { readPackageMap } from '../../lib/remote-kb/package-map';
import { docStem } from '../../lib/remote-kb/shapes';
import { repoRoot } from '../../lib/util/paths';
import { kfInProcess } from '../_shared/cli-in-process';
import { nonEmpty } from '../_shared/non-empty';
import { ownScratch, tinyDemoWorld } from '../_shared/scratch';
import { servedId } from '../../lib/serve-kb/ids';
import { startServeKb, type ServedKb } from './serve-kb.helper';

const KEY = 'serve-kb-test-key-42';
const UUID = 'resource_package:0123456789abcdef0123456789abcdef';
const scratch = ownScratch('kf-serve-kb-');
const indexDir = path.join(scratch, 'index');
const dottedDir = path.join(scratch, 'dotted-index');
const mapFile = path.join(scratch, 'kb_packages.json');
const writtenFile = path.join(scratch, 'served-packages.json');
const DOTTED = ['2310.05634v2', 'PH_2016.06.08_Economy-Final', 'plain-report'];
const DOC_UUID = (i: number) => `resource_package:${String(i).repeat(32)}`;
let whole: ServedKb;
let perDoc: ServedKb;
let question = '';

/** A small corpus whose file names carry dots, one topic each. */
function writeDottedCorpus(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const topics = ['sparse attention kernels for long context transformers', 'household economy survey in June 2016', 'annual report of the plain company'];
  DOTTED.forEach((name, i) => {
    const body = [
      `# ${name}`,
      '',
      `## Part one`,
      '',
      `This document is about ${topics[i]}. It says ${topics[i]} matter.`,
      '',
      '## Part two',
      '',
      `More on ${topics[i]}.`,
    ];
    fs.writeFileSync(path.join(dir, `${name}.md`), body.join('\n'));
  });
}

before(async () => {
  const world = await tinyDemoWorld();
  question = (JSON.parse(fs.readFileSync(path.join(world.dir, 'questions.json'), 'utf8')) as { question: string }[])[0].question;
  const built = await kfInProcess(['index', 'build', '--corpus', path.join(world.dir, 'corpus'), '--out', indexDir, '--offline', '--quiet']);
  assert.equal(built.code, 0, built.err);
  const corpus = path.join(scratch, 'dotted');
  writeDottedCorpus(corpus);
  const b2 = await kfInProcess(['index', 'build', '--corpus', corpus, '--out', dottedDir, '--offline', '--quiet']);
  assert.equal(b2.code, 0, b2.err);
  // The runner's layout: a section per benchmark, the MMLongBench-Doc section keyed by PDF file name.
  const mmlb = Object.fromEntries(DOTTED.map((d, i) => [`${d}.pdf`, { scope_name: `f-${i}`, package_uuid: DOC_UUID(i + 1) }]));
  fs.writeFileSync(mapFile, JSON.stringify({ m3docvqa: { 'm3d-full': 'resource_package:ffff' }, mmlongbench_doc: mmlb }));
  whole = await startServeKb(['--index', indexDir, '--uuid', UUID, '--key', KEY, '--quiet']);
  perDoc = await startServeKb(['--index', dottedDir, '--packages', mapFile, '--bench', 'mmlb', '--write-packages', writtenFile, '--quiet']);
});

after(async () => {
  await whole?.stop();
  await perDoc?.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const client = (baseUrl: string, uuid: string, apiKey?: string) => new RemoteKbClient({ baseUrl, uuid, apiKey, timeoutMs: 60_000, retries: 0 });

async function call(baseUrl: string, uuidInPath: string, endpoint: string, o: { key?: string; body?: unknown; query?: string } = {}) {
  const res = await fetch(`${baseUrl}/api/v2/kb/${uuidInPath}/${endpoint}${o.query ? `?${o.query}` : ''}`, {
    method: o.body ? 'POST' : 'GET',
    headers: { ...(o.key ? { authorization: `Bearer ${o.key}` } : {}), ...(o.body ? { 'content-type': 'application/json' } : {}) },
    body: o.body ? JSON.stringify(o.body) : undefined,
  });
  const type = res.headers.get('content-type') ?? '';
  const body = type.includes('json') ? ((await res.json()) as { success: boolean; data: Record<string, unknown>; error?: string }) : undefined;
  return { status: res.status, body, type };
}

const strip = <T>(o: T): T => JSON.parse(JSON.stringify(o)) as T;

test('the remote view over a served index equals the local view', { timeout: 120_000 }, async () => {
  const local = engineKnowledgeBase(await openIndex(indexDir));
  const remote = new RemoteKnowledgeBase(client(whole.baseUrl, UUID, KEY), { assetDir: path.join(scratch, 'assets') });
  try {
    const docs = nonEmpty(local.documents(), 'documents');
    assert.deepEqual(remote.documents(), docs);
    const [l, r] = [await local.search(question, { k: 8 }), await remote.search(question, { k: 8 })];
    nonEmpty(l.hits, 'hits');
    const key = (h: (typeof l.hits)[number]) => [h.fragmentId, h.docId, h.kind, h.rank, h.via, h.anchorId ?? null, h.page ?? null];
    assert.deepEqual(r.hits.map(key), l.hits.map(key));
    assert.deepEqual(
      r.hits.map((h) => h.score),
      l.hits.map((h) => h.score * 10),
      'score on the 0-10 scale',
    );
    const typed = await local.search(question, { k: 3, types: ['image', 'table'] });
    assert.deepEqual(
      (await remote.search(question, { k: 3, types: ['image', 'table'] })).hits.map((h) => h.fragmentId),
      typed.hits.map((h) => h.fragmentId),
    );
    for (const d of docs) {
      assert.deepEqual(remote.toc(d.id), local.toc(d.id), `toc ${d.id}`);
      assert.deepEqual(strip(remote.tables(d.id)), strip(local.tables(d.id)), `tables ${d.id}`);
    }
    const hit = l.hits[0];
    const { prev: _p, next: _n, media: _m, describedBy: _d, ...frag } = local.fragment(hit.fragmentId)!;
    const { media: _rm, ...rfrag } = remote.fragment(hit.fragmentId)!;
    assert.deepEqual(strip(rfrag), strip(frag));
    assert.deepEqual(
      remote.neighbours(hit.fragmentId, 2).map((f) => f.id),
      local.neighbours(hit.fragmentId, 2).map((f) => f.id),
    );
    const media = nonEmpty(local.media(), 'media');
    assert.deepEqual(
      remote.media().map((m) => m.fragmentId),
      media.map((m) => m.fragmentId),
    );
    const table = local.tables()[0];
    assert.deepEqual(remote.table(table.fragmentId), local.table(table.fragmentId));
    const cell = local.table(table.fragmentId)!.rows[0][0];
    assert.deepEqual(
      remote.queryTable(cell).map((x) => x.rows),
      local.queryTable(cell).map((x) => x.rows),
    );
    const labelled = media.find((m) => m.label)!;
    assert.deepEqual(
      remote.findFigure(labelled.label!).map((m) => m.fragmentId),
      local.findFigure(labelled.label!).map((m) => m.fragmentId),
    );
    assert.deepEqual(remote.overview(), local.overview());
    const image = media.find((m) => m.kind === 'image')!;
    assert.deepEqual(strip(remote.mediaContext(image.fragmentId)), strip(local.mediaContext(image.fragmentId)));
    const text = l.hits.find((h) => h.kind === 'text')!;
    assert.equal(remote.mediaContext(text.fragmentId), undefined, 'a text fragment has no media context');
    const a = remote.asset(image.fragmentId);
    assert.ok(a && fs.statSync(a.path).size > 0, 'download sends the stored file');
  } finally {
    await remote.client.close();
  }
});

test('every endpoint answers the fields the runner reads', { timeout: 60_000 }, async () => {
  const u = encodeURIComponent(UUID);
  const get = async (endpoint: string, query = '') => {
    const r = await call(whole.baseUrl, u, endpoint, { key: KEY, query });
    assert.equal(r.status, 200, `${endpoint}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body!.success, true);
    return r.body!.data;
  };
  const card = await get('card');
  assert.ok(typeof card.name === 'string' && card.name);
  const ov = await get('overview');
  assert.ok(typeof ov.name === 'string' && typeof ov.goal === 'string' && Array.isArray(ov.modules));
  for (const m of ov.modules as { title: string }[]) assert.equal(typeof m.title, 'string');
  const src = nonEmpty((await get('sources', 'min_contribution=0')).sources as Record<string, unknown>[], 'sources');
  for (const s of src) for (const k of ['name', 'root_node_id', 'one_line']) assert.equal(typeof s[k], 'string', `sources.${k}`);
  const s = await call(whole.baseUrl, u, 'search', { key: KEY, body: { query: question, topk: 8, score_fields: true } });
  assert.equal(s.status, 200);
  const data = s.body!.data;
  for (const k of ['results', 'images', 'tables', 'examples']) assert.ok(Array.isArray(data[k]), k);
  const results = nonEmpty(data.results as Record<string, unknown>[], 'results');
  for (const r of results) {
    for (const k of ['fragment_id', 'source_file', 'text', 'section_title']) assert.equal(typeof r[k], 'string', `results.${k}`);
    for (const k of ['score', 'raw_score', 'vec_score']) assert.equal(typeof r[k], 'number', `results.${k}`);
    assert.ok(Array.isArray(r.context));
  }
  for (const m of [...(data.images as Record<string, unknown>[]), ...(data.tables as Record<string, unknown>[])])
    for (const k of ['fragment_id', 'kind', 'caption', 'ext', 'path', 'root_node_id']) assert.equal(typeof m[k], 'string', `media hit ${k}`);
  const fid = String(results[0].fragment_id);
  const fc = await get('fragment-context', `fragment_id=${encodeURIComponent(fid)}&window=1`);
  const ctx = nonEmpty(fc.context as Record<string, unknown>[], 'context');
  assert.equal(ctx.filter((c) => c.anchor === true).length, 1);
  assert.equal((await get('fragment-context', 'fragment_id=nope')).error, 'fragment_not_found');
  const book = String(src[0].name);
  const toc = await get('book-toc', `book=${encodeURIComponent(book)}`);
  assert.equal(toc.book, book);
  nonEmpty((toc.toc as { sections: { title: string; level: number }[] }).sections, 'toc sections');
  assert.equal((await get('book-toc', 'book=zzzz-no-such-book')).error, 'book_not_found');
  const tables = nonEmpty((await get('tables')).tables as Record<string, unknown>[], 'tables');
  for (const k of ['table_id', 'name', 'columns', 'row_count']) assert.ok(tables[0][k] !== undefined, `tables.${k}`);
  const full = await get('table', `table_id=${encodeURIComponent(String(tables[0].table_id))}`);
  assert.ok(Array.isArray(full.rows) && typeof full.row_count === 'number' && typeof full.name === 'string');
  assert.deepEqual(await get('table', 'table_id=nope'), {}, 'an unknown table is an empty object (the runner: table_not_found)');
  const firstCell = String((full.cells as string[][])[0][0]);
  const qt = await get('query-table', `item=${encodeURIComponent(firstCell)}&table_id=`);
  const qr = nonEmpty(qt.results as Record<string, unknown>[], 'query-table results');
  for (const k of ['name', 'rows', 'matched']) assert.ok(qr[0][k] !== undefined, `query-table.${k}`);
  const lm = await get('list-media', `book=${encodeURIComponent(book)}&kind=all`);
  for (const k of ['book', 'total_images', 'total_tables', 'items']) assert.ok(lm[k] !== undefined, `list-media.${k}`);
  for (const it of lm.items as Record<string, unknown>[]) for (const k of ['fragment_id', 'kind', 'page', 'desc']) assert.ok(k in it, `list-media item ${k}`);
  assert.equal((await get('list-media', 'kind=all')).error, 'book_required', 'several documents: a book is required');
  const media = engineKnowledgeBase(await openIndex(indexDir)).media();
  const labelled = media.find((m) => m.label)!;
  const ff = await get('find-figure', `label=${encodeURIComponent(labelled.label!)}&book=${encodeURIComponent(labelled.docId)}`);
  for (const k of ['label', 'book', 'pages', 'media']) assert.ok(ff[k] !== undefined, `find-figure.${k}`);
  assert.ok((ff.media as { fragment_id: string }[]).some((m) => m.fragment_id === servedId(labelled.fragmentId)));
  assert.equal((await get('find-figure', 'label=banana')).error, 'bad_label');
  const image = media.find((m) => m.kind === 'image')!;
  const mc = await get('media-context', `fragment_id=${encodeURIComponent(image.fragmentId)}`);
  for (const k of ['fragment_id', 'kind', 'page', 'desc']) assert.ok(mc[k] !== undefined, `media-context.${k}`);
  assert.equal((await get('media-context', `fragment_id=${encodeURIComponent(fid)}`)).error, 'not_media');
  const dl = await fetch(`${whole.baseUrl}/api/v2/kb/${u}/download?fragment_id=${encodeURIComponent(image.fragmentId)}`, {
    headers: { authorization: `Bearer ${KEY}` },
  });
  assert.equal(dl.status, 200);
  assert.match(dl.headers.get('content-type') ?? '', /^image\//);
  assert.match(dl.headers.get('content-disposition') ?? '', /filename="page_\d+_image_\d+\.\w+"/);
  assert.ok((await dl.arrayBuffer()).byteLength > 0);
  // Mistakes are refused with their reason.
  assert.equal((await call(whole.baseUrl, u, 'search', { key: KEY, body: { topk: 3 } })).status, 400);
  assert.equal((await call(whole.baseUrl, u, 'card', { key: KEY, body: { x: 1 } })).status, 405);
  assert.equal((await call(whole.baseUrl, u, 'nonsense', { key: KEY })).status, 404);
});

test('fragment ids are served as frag_<hex>, taken back by every endpoint; x-kf-ids: harness gives the harness ids', { timeout: 60_000 }, async () => {
  const u = encodeURIComponent(UUID);
  const local = engineKnowledgeBase(await openIndex(indexDir));
  const ask = async (endpoint: string, query = '', harness = false, body?: unknown) => {
    const res = await fetch(`${whole.baseUrl}/api/v2/kb/${u}/${endpoint}${query ? `?${query}` : ''}`, {
      method: body ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${KEY}`, ...(harness ? { 'x-kf-ids': 'harness' } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    assert.equal(res.status, 200, endpoint);
    return ((await res.json()) as { data: Record<string, unknown> }).data;
  };
  const HOSTED = /^frag_[0-9a-f]{16}$/;
  const hitsOf = (d: Record<string, unknown>) =>
    ['results', 'images', 'tables', 'examples'].flatMap(
      (k) => d[k] as { fragment_id: string; anchor_fragment_id?: string; context: { fragment_id?: string }[] }[],
    );
  const served = hitsOf(await ask('search', '', false, { query: question, topk: 8 }));
  const own = hitsOf(await ask('search', '', true, { query: question, topk: 8 }));
  nonEmpty(served, 'served hits');
  const localHits = (await local.search(question, { k: 8 })).hits;
  assert.deepEqual(own.map((h) => h.fragment_id).sort(), localHits.map((h) => h.fragmentId).sort(), 'x-kf-ids: harness: the harness ids');
  assert.deepEqual(
    served.map((h) => h.fragment_id),
    own.map((h) => servedId(h.fragment_id)),
    'the same hits, ids in the hosted form',
  );
  for (const h of served) {
    assert.match(h.fragment_id, HOSTED);
    if (h.anchor_fragment_id) assert.match(h.anchor_fragment_id, HOSTED);
    for (const c of h.context) if (c.fragment_id) assert.match(c.fragment_id, HOSTED);
  }
  // A served id is taken back: fragment-context anchors on it, media-context and download find the figure.
  const fc = await ask('fragment-context', `fragment_id=${served[0].fragment_id}&window=1`);
  assert.equal(fc.fragment_id, served[0].fragment_id);
  const anchor = (fc.context as { anchor: boolean; fragment_id: string; text: string }[]).find((c) => c.anchor)!;
  assert.equal(anchor.fragment_id, served[0].fragment_id);
  assert.equal(anchor.text, local.fragment(own[0].fragment_id)!.text);
  const image = local.media().find((m) => m.kind === 'image')!;
  const mc = await ask('media-context', `fragment_id=${servedId(image.fragmentId)}`);
  assert.equal(mc.fragment_id, servedId(image.fragmentId));
  assert.equal(mc.kind, 'image');
  const dl = await fetch(`${whole.baseUrl}/api/v2/kb/${u}/download?fragment_id=${servedId(image.fragmentId)}`, { headers: { authorization: `Bearer ${KEY}` } });
  assert.equal(dl.status, 200);
  assert.ok((await dl.arrayBuffer()).byteLength > 0);
  const tables = nonEmpty((await ask('tables')).tables as { table_id: string }[], 'tables');
  assert.match(tables[0].table_id, HOSTED);
  const t = await ask('table', `table_id=${tables[0].table_id}`);
  assert.equal(t.table_id, tables[0].table_id);
  assert.ok((t.rows as unknown[]).length > 0);
  const toc = await ask('book-toc', `book=${encodeURIComponent(image.docId)}`);
  for (const sct of nonEmpty((toc.toc as { sections: { fragment_id: string }[] }).sections, 'toc')) assert.match(sct.fragment_id, HOSTED);
  // An unknown id is echoed as given.
  assert.equal((await ask('fragment-context', 'fragment_id=frag_0000000000000000')).fragment_id, 'frag_0000000000000000');
});

test('the key: none 426, another 401, an unserved package 403; ids percent-encoded or plain', { timeout: 30_000 }, async () => {
  const u = encodeURIComponent(UUID);
  assert.equal(u.includes('%3A'), true);
  assert.equal((await call(whole.baseUrl, u, 'card')).status, 426);
  assert.equal((await call(whole.baseUrl, u, 'card', { key: 'wrong' })).status, 401);
  const other = await call(whole.baseUrl, encodeURIComponent('resource_package:ffff'), 'card', { key: KEY });
  assert.equal(other.status, 403);
  assert.match(other.body!.error!, /not served here/);
  assert.equal((await call(whole.baseUrl, UUID, 'card', { key: KEY })).status, 200, 'a plain colon too');
  assert.equal((await call(whole.baseUrl, u, 'card', { key: KEY })).status, 200);
  // Without a key configured an unknown package is simply not found.
  assert.equal((await call(perDoc.baseUrl, 'resource_package%3Affff', 'card')).status, 404);
  // The runner's ids pass the harness's --kb check.
  assert.equal(remoteKbUuid(`remote:${UUID}`), UUID);
});

test('one package per document from the runner layout; dotted names whole; remote:per-document routes by document', { timeout: 60_000 }, async () => {
  assert.equal(docStem('2310.05634v2'), '2310.05634v2');
  assert.equal(docStem('PH_2016.06.08_Economy-Final'), 'PH_2016.06.08_Economy-Final');
  assert.equal(docStem('dir/2310.05634v2.pdf'), '2310.05634v2');
  const entries = readPackageMap(mapFile, 'mmlongbench_doc');
  assert.deepEqual(
    entries.map((e) => e.doc),
    DOTTED,
  );
  for (const [i, doc] of DOTTED.entries()) {
    const src = await call(perDoc.baseUrl, encodeURIComponent(DOC_UUID(i + 1)), 'sources');
    assert.equal(src.status, 200);
    assert.deepEqual(
      (src.body!.data.sources as { name: string }[]).map((s) => s.name),
      [`${doc}.md`],
    );
    const ov = await call(perDoc.baseUrl, encodeURIComponent(DOC_UUID(i + 1)), 'overview');
    assert.equal(ov.body!.data.name, doc, 'a document package is named by its document');
  }
  // --write-packages: the served documents in the runner's layout (its packages_file), uuids as served.
  const written = JSON.parse(fs.readFileSync(writtenFile, 'utf8')) as Record<string, Record<string, { package_uuid: string }>>;
  assert.deepEqual(Object.keys(written), ['mmlongbench_doc']);
  assert.deepEqual(
    Object.entries(written.mmlongbench_doc).map(([file, v]) => [file, v.package_uuid]),
    DOTTED.map((d, i) => [`${d}.md`, DOC_UUID(i + 1)]),
  );
  // A flat {document: uuid} map reads the same way.
  const flat = path.join(scratch, 'flat.json');
  fs.writeFileSync(flat, JSON.stringify({ [`${DOTTED[0]}.pdf`]: DOC_UUID(1) }));
  assert.deepEqual(
    readPackageMap(flat, 'mmlongbench_doc').map((e) => [e.doc, e.uuid]),
    [[DOTTED[0], DOC_UUID(1)]],
  );
  const env = { ...process.env, KF_KB_BASE_URL: perDoc.baseUrl, KF_KB_PACKAGES: mapFile, KF_KB_API_KEY: '' };
  const kb = openRemoteKb('remote:per-document', {}, env);
  try {
    for (const [i, doc] of DOTTED.entries()) {
      const view = kb.restrictedTo([doc]);
      assert.equal(view.client.uuid, DOC_UUID(i + 1));
      const hits = nonEmpty((await view.search('economy survey attention kernels annual report', { k: 5 })).hits, `hits of ${doc}`);
      assert.ok(
        hits.every((h) => h.docId === doc),
        `${doc}: ${hits.map((h) => h.docId).join(', ')}`,
      );
      assert.deepEqual(
        view.documents().map((d) => d.id),
        [doc],
      );
    }
    await assert.rejects(() => kb.search('anything'), /names no document/);
    assert.throws(() => kb.restrictedTo(['not-in-the-map']), /no package/);
  } finally {
    await kb.client.close();
  }
});

const RUNNER = path.join(repoRoot(), '..', 'shared', 'reference', 'knowforge-bench');

/** The released runner's own client against the server: every endpoint, the shapes its materializers read. */
const RUNNER_SNIPPET = `
import json, sys
sys.path.insert(0, sys.argv[1])
from kfbench.kb_client import KB
from kfbench import materials as M
kb = KB(sys.argv[2], sys.argv[3], api_key=sys.argv[4])
b = M.MaterialBuilder()
out = {}
out["card"] = sorted(kb.card().keys())
out["persona_source"] = sorted(kb.overview().keys())
out["roots"] = len(kb.root_names())
s = kb.search(sys.argv[5], 8, True)
out["search_block"] = len(M.search_mat(b, s))
fid = s["results"][0]["fragment_id"]
out["fragment"] = len(M.fragment_mat(b, kb.fragment_context(fid, 1)))
book = next(iter(kb.root_names().values()))
out["toc"] = len(M.book_toc_mat(b, kb.book_toc(book)))
t = kb.list_tables()
out["tables"] = len(M.list_tables_mat(b, t))
tid = t["tables"][0]["table_id"]
whole = kb.get_table(tid)
out["table"] = len(M.get_table_mat(b, whole))
cell = list(whole["rows"][0].values())[0]
out["query_table"] = len(M.query_table_mat(b, kb.query_table(cell, "")))
lm = kb.list_media(book, "all")
out["list_media"] = len(M.list_media_mat(b, lm))
out["list_media_no_book"] = M.list_media_mat(b, kb.list_media()).startswith("（")
lab = sys.argv[6]
out["find_figure"] = len(M.find_figure_mat(b, kb.find_figure(lab, sys.argv[7])))
img = sys.argv[8]
out["media_context"] = len(M.media_context_mat(b, kb.media_context(img)))
data, mime, name = kb.download(img)
out["download"] = [len(data) > 0, mime, name]
print(json.dumps(out))
`;

test("the released runner's client calls every endpoint and its materializers read the replies", { timeout: 60_000 }, async (t) => {
  if (!fs.existsSync(path.join(RUNNER, 'kfbench', 'kb_client.py'))) return t.skip(`the released runner is not at ${RUNNER}`);
  const probe = spawnSync('python3', ['-c', 'import requests'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return t.skip(`python3 with requests is not available here (${probe.error?.message ?? probe.stderr.trim()})`);
  const media = engineKnowledgeBase(await openIndex(indexDir)).media();
  const labelled = media.find((m) => m.label)!;
  const image = media.find((m) => m.kind === 'image')!;
  const py = spawnSync('python3', ['-c', RUNNER_SNIPPET, RUNNER, whole.baseUrl, UUID, KEY, question, labelled.label!, labelled.docId, image.fragmentId], {
    encoding: 'utf8',
    timeout: 50_000,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }, // nothing written into the runner's checkout
  });
  assert.equal(py.status, 0, py.stderr);
  const r = JSON.parse(py.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  for (const k of ['search_block', 'fragment', 'toc', 'tables', 'table', 'query_table', 'list_media', 'find_figure', 'media_context'])
    assert.ok((r[k] as number) > 0, `${k}: ${JSON.stringify(r)}`);
  assert.ok((r.persona_source as string[]).includes('goal') && (r.persona_source as string[]).includes('modules'));
  assert.ok((r.roots as number) > 1);
  assert.equal(r.list_media_no_book, true);
  assert.deepEqual((r.download as unknown[]).slice(0, 2), [true, 'image/png']);
});

/** The runner's evidence pool over served search replies: every figure line's id is one its pattern recognises and its pool knows. */
const POOL_SNIPPET = `
import json, re, sys
sys.path.insert(0, sys.argv[1])
from kfbench.kb_client import KB
from kfbench import materials as M
kb = KB(sys.argv[2], sys.argv[3], api_key=sys.argv[4])
b = M.MaterialBuilder()
log = []
for q in sys.argv[5:]:
    s = kb.search(q, 8, True)
    log.append({"data": s})
    M.search_mat(b, s)
text = b.materials()
served = {it.get("fragment_id") for e in log for k in ("results", "images", "tables") for it in (e["data"].get(k) or [])}
served |= {c.get("fragment_id") for e in log for it in (e["data"].get("results") or []) for c in (it.get("context") or [])}
lines = text.count("fragment_context \u8bfb ")
found = M._FID_RE.findall(text)
_pool, stats = M.pool_materials(b, log, cap=200, sub_caps={"image": 60, "table": 60, "example": 40})
print(json.dumps({"lines": lines, "found": len(found), "known": sum(1 for f in found if f in served), "dropped": stats["dropped"], "kept": stats["kept_fids"]}))
`;

test("the runner's evidence pool recognises the served ids (its _FID_RE) when it overflows", { timeout: 60_000 }, async (t) => {
  if (!fs.existsSync(path.join(RUNNER, 'kfbench', 'materials.py'))) return t.skip(`the released runner is not at ${RUNNER}`);
  const probe = spawnSync('python3', ['-c', 'import requests'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return t.skip(`python3 with requests is not available here (${probe.error?.message ?? probe.stderr.trim()})`);
  const media = engineKnowledgeBase(await openIndex(indexDir)).media();
  const queries = [question, ...media.slice(0, 4).map((m) => m.caption || m.label || m.docId)];
  const py = spawnSync('python3', ['-c', POOL_SNIPPET, RUNNER, whole.baseUrl, UUID, KEY, ...queries], {
    encoding: 'utf8',
    timeout: 50_000,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  assert.equal(py.status, 0, py.stderr);
  const r = JSON.parse(py.stdout.trim().split('\n').pop()!) as { lines: number; found: number; known: number; dropped: number; kept: string[] };
  assert.ok(r.lines > 0, `no figure line names an id to read (${JSON.stringify(r)})`);
  assert.equal(r.found, r.lines, 'every figure line id matches the pool pattern');
  assert.equal(r.known, r.found, 'and names a fragment of a search');
  assert.ok(r.dropped > 0, 'the pool overflowed');
  for (const f of r.kept) assert.match(f, /^frag_[0-9a-f]{16}$/);
});
