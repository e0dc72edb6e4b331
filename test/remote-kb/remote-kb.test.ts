/**
 * A hosted knowledge base (`--kb remote:<uuid>`) against the scripted server
 * (kb-server.ts, a child process serving the tiny demo index through the
 * /api/v2/kb/{uuid}/... API):
 * - every view method over HTTP equals the local view of the same index;
 * - M5's retrieval side over the server equals M5's over the local index,
 *   question by question (kf eval retrieval --config M5 --kb remote:demo);
 * - a whole run (kf run --kb) answers every question, and the account key
 *   is in no file of the run folder and in no output;
 * - 426 / 401 / 403 name what to do, 429 is retried (Retry-After) and then
 *   refused, timeouts and malformed bodies are clear errors.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { demoPresetOverrides } from '../../lib/bench/benchmarks/demo';
import { openIndex } from '../../lib/index/open';
import { RemoteKbClient } from '../../lib/remote-kb/client';
import { RemoteKnowledgeBase } from '../../lib/remote-kb/knowledge-base';
import { openRemoteKb } from '../../lib/remote-kb/open';
import { loadExperiment } from '../../lib/run/config';
import { engineKnowledgeBase } from '../../lib/pipeline/index-view';
import { runExperiment } from '../../lib/run/runner';
import { KfError } from '../../lib/util/errors';
import { repoRoot } from '../../lib/util/paths';
import { kfInProcess } from '../_shared/cli-in-process';
import { demoEvalRetrievalArgs, ownScratch, tinyDemoWorld } from '../_shared/scratch';

const KEY = 'kb-test-key-0123456789abcdef';
const scratch = ownScratch('kf-remote-kb-');
const indexDir = path.join(scratch, 'index');
let server: ChildProcess;
let baseUrl = '';
let world: Awaited<ReturnType<typeof tinyDemoWorld>>;
const seen: { seen?: string; uuid?: string; auth: string }[] = [];

const common = () => demoEvalRetrievalArgs(world.dir);

before(async () => {
  world = await tinyDemoWorld();
  // The local side builds its own index (kf eval retrieval's options); the server serves that same folder.
  const local = await kfInProcess([...common(), '--index', indexDir, '--offline', '--limit', '1', '--quiet']);
  assert.equal(local.code, 0, local.err);
  server = fork(path.join(__dirname, 'kb-server.js'), [], { env: { ...process.env, KB_INDEX_DIR: indexDir, KB_KEY: KEY }, stdio: 'pipe' });
  const port = await new Promise<number>((resolve, reject) => {
    server.on('message', (m: { port?: number; seen?: string; uuid?: string; auth: string }) => (m.port ? resolve(m.port) : seen.push(m)));
    server.on('exit', (code) => reject(new Error(`kb-server exited with ${code}`)));
  });
  baseUrl = `http://127.0.0.1:${port}`;
  process.env.KF_KB_BASE_URL = baseUrl;
  process.env.KF_KB_API_KEY = KEY;
});

after(() => {
  server?.kill();
  delete process.env.KF_KB_BASE_URL;
  delete process.env.KF_KB_API_KEY;
  fs.rmSync(scratch, { recursive: true, force: true });
});

const client = (uuid: string, o: { apiKey?: string; timeoutMs?: number; retries?: number } = {}) =>
  new RemoteKbClient({ baseUrl, uuid, apiKey: 'apiKey' in o ? o.apiKey : KEY, timeoutMs: o.timeoutMs ?? 60_000, retries: o.retries ?? 3, backoffMs: 1 });

function refusal(fn: () => unknown): KfError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof KfError, String(e));
    assert.ok(!`${e.message} ${e.hint}`.includes(KEY), 'the key is never in a message');
    return e;
  }
  assert.fail('expected a refusal');
}

async function asyncRefusal(p: Promise<unknown>): Promise<KfError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof KfError, String(e));
    assert.ok(!`${e.message} ${e.hint}`.includes(KEY), 'the key is never in a message');
    return e;
  }
  assert.fail('expected a refusal');
}

test('every view method over HTTP equals the local view of the same index', { timeout: 120_000 }, async () => {
  const local = engineKnowledgeBase(await openIndex(indexDir));
  const remote = new RemoteKnowledgeBase(client('demo'), { assetDir: path.join(scratch, 'assets') });
  try {
    const docs = local.documents();
    assert.ok(docs.length >= 2);
    assert.deepEqual(remote.documents(), docs);
    assert.deepEqual(remote.documents(docs[0].title.slice(0, 4)), local.documents(docs[0].title.slice(0, 4)));
    const q = (JSON.parse(fs.readFileSync(path.join(world.dir, 'questions.json'), 'utf8')) as { question: string }[])[0].question;
    // The API's search takes no mode (the runner sends query, topk, score_fields): a mode asked of the
    // remote view is not sent, and the server's own retrieval (here the local default) answers.
    {
      const [l, r] = [await local.search(q, { k: 8 }), await remote.search(q, { k: 8, mode: 'bm25' })];
      assert.deepEqual(
        r.hits.map((h) => [h.fragmentId, h.docId, h.kind, h.rank, h.score, h.via, h.anchorId]),
        l.hits.map((h) => [h.fragmentId, h.docId, h.kind, h.rank, h.score, h.via, h.anchorId]),
      );
    }
    const typed = await local.search(q, { k: 3, types: ['image', 'table'] });
    assert.deepEqual(
      (await remote.search(q, { k: 3, types: ['image', 'table'] })).hits.map((h) => h.fragmentId),
      typed.hits.map((h) => h.fragmentId),
    );
    for (const d of docs) {
      assert.equal(remote.title(d.id), local.title(d.id));
      assert.deepEqual(remote.toc(d.id), local.toc(d.id), `toc ${d.id}`);
      assert.deepEqual(strip(remote.tables(d.id)), strip(local.tables(d.id)), `tables ${d.id}`);
    }
    const hit = (await local.search(q, { k: 1, mode: 'bm25' })).hits[0];
    const { prev: _p, next: _n, media: _m, describedBy: _d, ...frag } = local.fragment(hit.fragmentId)!;
    const { media: rm, ...rfrag } = remote.fragment(hit.fragmentId)!;
    void rm;
    assert.deepEqual(strip(rfrag), strip(frag));
    assert.deepEqual(
      remote.neighbours(hit.fragmentId, 2).map((f) => f.id),
      local.neighbours(hit.fragmentId, 2).map((f) => f.id),
    );
    const media = local.media();
    assert.deepEqual(
      remote.media().map((m) => m.fragmentId),
      media.map((m) => m.fragmentId),
    );
    const table = local.tables()[0];
    assert.ok(table, 'the tiny world has tables');
    {
      assert.deepEqual(remote.table(table.fragmentId), local.table(table.fragmentId));
      const cell = local.table(table.fragmentId)!.rows[0]?.[0] ?? '';
      assert.deepEqual(
        remote.queryTable(cell).map((x) => x.rows),
        local.queryTable(cell).map((x) => x.rows),
      );
    }
    const labelled = media.find((m) => m.label);
    if (labelled)
      assert.deepEqual(
        remote.findFigure(labelled.label!).map((m) => m.fragmentId),
        local.findFigure(labelled.label!).map((m) => m.fragmentId),
      );
    const image = media.find((m) => m.kind === 'image');
    assert.ok(image, 'the tiny world has images');
    {
      const a = remote.asset(image.fragmentId);
      assert.ok(a && fs.existsSync(a.path) && fs.statSync(a.path).size > 0, 'download keeps the file for the vision stage');
    }
    // card, overview and media-context answer too (the run manifest names the card).
    assert.match(String(remote.client.card().name), /demo/);
    assert.ok(Array.isArray(remote.client.overview().documents));
    assert.equal(remote.client.mediaContext(image.fragmentId).fragment_id, image.fragmentId);
    // A document restriction hides the others from every lookup.
    const one = remote.restrictedTo([docs[0].id]);
    assert.deepEqual(
      one.documents().map((d) => d.id),
      [docs[0].id],
    );
    assert.ok((await one.search(q, { k: 8 })).hits.every((h) => h.docId === docs[0].id));
  } finally {
    await remote.client.close();
  }
});

/** Undefined fields dropped (JSON has none), for comparing objects that crossed the wire. */
function strip<T>(o: T): T {
  return JSON.parse(JSON.stringify(o)) as T;
}

test('M5 over the scripted remote knowledge base retrieves exactly what M5 over the local index does', { timeout: 5 * 60_000 }, async () => {
  const outLocal = path.join(scratch, 'eval-local');
  const outRemote = path.join(scratch, 'eval-remote');
  const limit = ['--limit', '8', '--quiet', '--offline', '--config', 'M5'];
  const l = await kfInProcess([...common(), '--index', indexDir, ...limit, '--out', outLocal]);
  assert.equal(l.code, 0, l.err);
  const r = await kfInProcess([...common(), '--kb', 'remote:demo', ...limit, '--out', outRemote]);
  assert.equal(r.code, 0, r.err);
  const [ls, rs] = [JSON.parse(l.out.trim().split('\n').pop()!), JSON.parse(r.out.trim().split('\n').pop()!)];
  assert.equal(rs.index.dir, 'remote:demo');
  assert.ok(!r.out.includes(KEY) && !r.err.includes(KEY), 'the key is not printed');
  assert.ok(ls.n > 0);
  for (const k of ['n', 'recall', 'allFound', 'recallAll', 'docFound', 'searchesPerQuestion', 'bridgeSearchesPerQuestion']) assert.deepEqual(rs[k], ls[k], k);
  const read = (d: string) =>
    fs
      .readFileSync(path.join(d, 'records.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((x) => JSON.parse(x));
  assert.deepEqual(read(outRemote), read(outLocal), 'the same searches, documents and scores, question by question');
  assert.ok(!fs.readFileSync(path.join(outRemote, 'summary.json'), 'utf8').includes(KEY));
  // --mode over the remote base measures retrieval with no model as well.
  const m = await kfInProcess([...common(), '--kb', 'remote:demo', '--mode', 'hybrid+graph', '--limit', '8', '--quiet', '--offline']);
  const lm = await kfInProcess([...common(), '--index', indexDir, '--mode', 'hybrid+graph', '--limit', '8', '--quiet', '--offline']);
  assert.equal(m.code, 0, m.err);
  assert.deepEqual(JSON.parse(m.out.trim().split('\n').pop()!).recall, JSON.parse(lm.out.trim().split('\n').pop()!).recall);
});

test('a run over the remote knowledge base answers every question; the key is in no file and no output', { timeout: 5 * 60_000 }, async () => {
  const out = path.join(scratch, 'runs');
  const exp = loadExperiment(path.join(repoRoot(), 'experiments', 'knowforge', 'demo', 'M5.toml'), {
    overrides: [...demoPresetOverrides('tiny', world.dir).overrides, 'index.kb=remote:demo', 'models.cache.mode=off', 'limits.maxQuestions=2'],
  });
  const lines: string[] = [];
  const run = await runExperiment({ experiment: exp, resultsDir: out, log: (l) => lines.push(l) });
  assert.equal(run.status, 'completed');
  const records = fs
    .readFileSync(path.join(run.dir, 'records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((x) => JSON.parse(x));
  assert.equal(records.length, 2);
  for (const rec of records) {
    assert.equal(rec.error ?? null, null, JSON.stringify(rec.error));
    assert.ok(rec.counters.searches >= 1);
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(run.dir, 'manifest.json'), 'utf8'));
  assert.equal(JSON.stringify(manifest).includes('remote:demo'), true, 'the manifest names the knowledge base');
  const files = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  for (const f of files(out)) assert.ok(!fs.readFileSync(f).toString('latin1').includes(KEY), `${path.relative(out, f)} holds no key`);
  assert.ok(!lines.join('\n').includes(KEY));
  assert.ok(
    seen.some((s) => s.uuid === 'demo' && s.seen === 'search'),
    'the run searched through the server',
  );
});

test('kf ask --kb remote: answers over the hosted knowledge base', { timeout: 5 * 60_000 }, async () => {
  const r = await kfInProcess(['ask', '--config', 'M5', '--preset', 'tiny', '--kb', 'remote:demo', '--quiet', 'Which city had more inhabitants in 2015?']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /FINAL ANSWER:/);
  assert.ok(!r.out.includes(KEY) && !r.err.includes(KEY), 'the key is not printed');
});

test('426, 401 and 403 say what to do; the key stays out of every message', async () => {
  const e426 = refusal(() => client('demo', { apiKey: undefined }).getSync('sources'));
  assert.equal(e426.code, 'kb_key_required');
  assert.match(e426.hint ?? '', /KF_KB_API_KEY/);
  const e401 = refusal(() => client('demo', { apiKey: 'wrong' }).getSync('sources'));
  assert.equal(e401.code, 'kb_key_rejected');
  assert.match(e401.hint ?? '', /current key/);
  const e403 = refusal(() => client('not-enabled').getSync('sources'));
  assert.equal(e403.code, 'kb_package_not_enabled');
  assert.match(e403.hint ?? '', /add the package/);
  // The async path (search) maps the same statuses.
  assert.equal((await asyncRefusal(client('not-enabled').post('search', { query: 'x', topk: 1 }))).code, 'kb_package_not_enabled');
  // Without a server the reference fails at load naming the variable.
  const noServer = refusal(() => openRemoteKb('remote:demo', {}, { KF_KB_API_KEY: KEY }));
  assert.equal(noServer.code, 'kb_no_server');
  assert.equal(refusal(() => openRemoteKb('remote:', {}, { KF_KB_BASE_URL: baseUrl })).code, 'bad_kb');
});

test('429 is retried with backoff (Retry-After honoured) and refused once retries run out', async () => {
  const flaky = client('flaky', { retries: 3 });
  const before = seen.filter((s) => s.uuid === 'flaky').length;
  const data = flaky.getSync('sources');
  assert.ok(Array.isArray(data.sources) && data.sources.length >= 2, 'served after two 429s');
  assert.equal(flaky.calls, 3, 'two refused, one answered');
  const r = await flaky.post('search', { query: 'a', topk: 2 });
  assert.ok(Array.isArray(r.results), 'search retried the same way');
  assert.equal(seen.filter((s) => s.uuid === 'flaky').length - before, 6);
  const limited = client('always-429', { retries: 2 });
  assert.equal(refusal(() => limited.getSync('sources')).code, 'kb_rate_limited');
  assert.equal(limited.calls, 3, 'first try plus two retries');
  await flaky.close();
  await limited.close();
});

test('a server that never answers times out; non-JSON, refusals and non-objects are clear errors', async () => {
  const slow = refusal(() => client('slow', { timeoutMs: 300, retries: 0 }).getSync('sources'));
  assert.equal(slow.code, 'kb_timeout');
  assert.match(slow.hint ?? '', /KF_KB_TIMEOUT_S/);
  assert.equal((await asyncRefusal(client('slow', { timeoutMs: 300, retries: 0 }).post('search', { query: 'x' }))).code, 'kb_timeout');
  const html = refusal(() => client('html').getSync('sources'));
  assert.equal(html.code, 'kb_bad_reply');
  assert.match(html.message, /not JSON/);
  assert.equal(refusal(() => client('refuse').getSync('sources')).code, 'kb_refused');
  assert.equal(refusal(() => client('array').getSync('sources')).code, 'kb_bad_reply');
});
