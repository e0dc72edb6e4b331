/**
 * DualG-MRAG's raw images from a SERVED knowledge base, over real HTTP on both sides: the tiny demo index is
 * served by `kf serve kb` (the compiled CLI in a child process, the knowledge-base API the remote backend
 * reads) and opened with the remote view, whose asset() downloads the file;
 * the synth stage (scripted model server) receives that file's bytes as an image part inside the unified
 * prompt, with the path section; a file over the size cap is skipped and traced.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { dualgPipeline, dualgSettings } from '../../lib/dualg/pipeline';
import { clearImageProbes } from '../../lib/dualg/image-probe';
import { RemoteKbClient } from '../../lib/remote-kb/client';
import { RemoteKnowledgeBase } from '../../lib/remote-kb/knowledge-base';
import type { KbSearchOptions, KnowledgeBase } from '../../lib/pipeline/knowledge-base';
import type { RankedEvidence } from '../../lib/pipeline/ranked-evidence';
import { withPaths, type EvidencePath } from '../../lib/dualg/paths/evidence-path';
import { ScriptedServer, type RecordedRequest } from '../../lib/models/testing/scripted-server';
import type { PipelineContext, TraceEvent } from '../../lib/pipeline/types';
import { makeRng } from '../../lib/util/rng';
import { loadPrompt } from '../../lib/util/prompts';
import { routerFor } from '../models/helpers';
import { kfInProcess } from '../_shared/cli-in-process';
import { demoEvalRetrievalArgs, ownScratch, tinyDemoWorld } from '../_shared/scratch';
import { startServeKb, type ServedKb } from '../serve-kb/serve-kb.helper';

const KEY = 'kb-test-key-0123456789abcdef';
const scratch = ownScratch('kf-dualg-served-');
const indexDir = path.join(scratch, 'index');
let served: ServedKb;
let baseUrl = '';

before(async () => {
  const world = await tinyDemoWorld();
  const local = await kfInProcess([...demoEvalRetrievalArgs(world.dir), '--index', indexDir, '--offline', '--limit', '1', '--quiet']);
  assert.equal(local.code, 0, local.err);
  served = await startServeKb(['--index', indexDir, '--whole', '--uuid', 'demo', '--key', KEY, '--quiet']);
  baseUrl = served.baseUrl;
});

after(async () => {
  await served?.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** The served view, whose DualG search returns the image fragment as its hit and a path through it. */
function servedGraphKb(remote: RemoteKnowledgeBase, imageId: string): KnowledgeBase {
  const f = remote.fragment(imageId)!;
  const paths: EvidencePath[] = [
    { score: 1, docs: [f.docId], steps: [{ from: 'Chart', relation: 'shows', to: 'Sales', source: { docId: f.docId, fragmentId: imageId } }] },
  ];
  const view = Object.create(remote) as KnowledgeBase;
  view.search = async (query: string, opts: KbSearchOptions = {}): Promise<RankedEvidence> => ({
    query,
    retriever: String(opts.mode),
    hits: [
      { fragmentId: imageId, docId: f.docId, kind: 'image', text: f.text, rank: 1, score: 1, via: 'expansion', scores: {}, media: [], section: [] },
    ] as never,
    docs: [{ docId: f.docId, score: 1 }],
    timings: { totalMs: 0 },
    extra: withPaths(paths),
    system: { label: 'scorer gnn (checkpoint abc)', scorer: 'gnn', removed: [] },
  });
  return view;
}

async function run(settings: Record<string, unknown>) {
  clearImageProbes();
  const models = await ScriptedServer.start();
  models.on({ model: 'pat', reply: { text: JSON.stringify({ conditions: [['?x', 'shown in', 'chart']], target: '?x', visual_budget: 1 }) } });
  models.on({ model: 'vlm', reply: { text: 'The chart shows sales.\nFINAL ANSWER: sales' } });
  const router = routerFor(models, { stages: { pattern: { model: 'pat' }, synth: { model: 'vlm' }, checker: { model: 'chk' } } });
  const remote = new RemoteKnowledgeBase(new RemoteKbClient({ baseUrl, uuid: 'demo', apiKey: KEY, timeoutMs: 60_000, retries: 1, backoffMs: 1 }), {
    assetDir: path.join(scratch, `assets-${Date.now()}`),
  });
  const image = remote.media().find((m) => m.kind === 'image');
  assert.ok(image, 'the tiny world has images');
  const events: TraceEvent[] = [];
  try {
    const ctx: PipelineContext = {
      question: { id: 'q1', benchmark: 'demo', question: 'What does the chart show?', answer: 'sales', meta: {} } as unknown as PipelineContext['question'],
      model: (stage) => router.forStage(stage),
      kb: servedGraphKb(remote, image.fragmentId),
      convention: 'generic',
      settings: {},
      rng: makeRng('t'),
      signal: new AbortController().signal,
      trace: (e) => events.push(e),
    };
    const result = await dualgPipeline('DG', '', dualgSettings.parse({ retriever: 'dualg-gnn', ...settings })).run(ctx);
    const probe = loadPrompt('dualg-image-probe');
    const synth = models.requests.filter((r) => r.model === 'vlm' && !JSON.stringify(r.body.messages).includes(probe));
    return { result, events, synth, imageId: image.fragmentId, asset: remote.asset(image.fragmentId) };
  } finally {
    await router.close();
    await models.close();
  }
}

const imageUrls = (r: RecordedRequest): string[] =>
  (r.body.messages[r.body.messages.length - 1].content as { type: string; image_url?: { url: string } }[])
    .filter((p) => p.type === 'image_url')
    .map((p) => p.image_url!.url);

test(
  'the served knowledge base hands over the image file: its bytes reach the synth stage as an image part with the unified prompt',
  { timeout: 180_000 },
  async () => {
    const { result, synth, asset, imageId, events } = await run({});
    assert.equal(synth.length, 1);
    const urls = imageUrls(synth[0]);
    assert.equal(urls.length, 1, 'k_v = 1: one image part');
    assert.ok(asset && fs.existsSync(asset.path), 'downloaded through the view');
    const bytes = fs.readFileSync(asset.path);
    assert.ok(bytes.length > 0);
    assert.equal(urls[0].replace(/^data:[^,]*,/, ''), bytes.toString('base64'), 'the downloaded bytes are what the model receives');
    const text = JSON.stringify(synth[0].body.messages);
    assert.ok(text.includes(loadPrompt('dualg-generate-system').slice(0, 60)), 'the unified system prompt');
    assert.match(text, /Chart -shows-> Sales/, 'the path section');
    assert.equal(result.finalAnswer, 'sales');
    assert.deepEqual((events.find((e) => e.kind === 'pool') as { images?: string[] }).images, [imageId]);
  },
);

test('an image file over the size cap is not sent, and the trace says which and how large', { timeout: 180_000 }, async () => {
  const { synth, events, imageId } = await run({ maxImageBytes: 10 });
  assert.equal(typeof synth[0].body.messages[synth[0].body.messages.length - 1].content, 'string', 'no image part');
  const pool = events.find((e) => e.kind === 'pool') as { imagesOversized?: { fragmentId: string; bytes: number }[] };
  assert.equal(pool.imagesOversized?.[0]?.fragmentId, imageId);
  assert.ok(pool.imagesOversized![0].bytes > 10);
});
