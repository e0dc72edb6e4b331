/**
 * Image micro facts from a VLM (the `vision` stage, graph setting microImages = "vision"), over real
 * HTTP against the scripted OpenAI-compatible server: the VLM's facts land in the micro graph with
 * their asset, an unreadable reply is reported per asset and the OCR facts stay, every request carries
 * its image, replies are cached by the model layer, and the default (OCR) graph is unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Fragment } from '../../lib/corpus/types';
import { dualgGraphKind, graphRequest, graphSettings, register as registerDualgArtifacts } from '../../lib/dualg/artifacts';
import { DUALG_GRAPH_KIND } from '../../lib/dualg/graph/store';
import { buildIndex } from '../../lib/index/build';
import { ArtifactStore } from '../../lib/pipeline/artifact-store';
import { buildDualGraph, type GraphSource } from '../../lib/dualg/graph/build';
import { parseVisionFacts, VISION_REPORT_FILE, visionFactsFromModel } from '../../lib/dualg/graph/micro-vision';
import type { DualGraph, MicroFact } from '../../lib/dualg/graph/types';
import { InProcessModel } from '../../lib/models/in-process';
import { ScriptedServer, type RecordedRequest } from '../../lib/models/testing/scripted-server';
import { registerOfflineHandlers } from '../../lib/pipeline/offline-backend';
import { artifactKey } from '../../lib/pipeline/artifact-store';
import { ownScratch } from '../_shared/scratch';
import { routerFor } from '../models/helpers';

// Two different 1x1 PNGs (the pixel byte differs), so each request's image can be told apart by its bytes.
const png = (pixel: string) =>
  Buffer.from(
    `89504e470d0a1a0a0000000d4948445200000001000000010806000000` + `1f15c4890000000d4944415478da63${pixel}c0f01f0005000201a0e4ab3b0000000049454e44ae426082`,
    'hex',
  );

interface Fixture {
  source: GraphSource;
  files: Record<string, string>;
}

function fixture(dir: string): Fixture {
  const files = { chart: path.join(dir, 'chart.png'), poster: path.join(dir, 'poster.png') };
  fs.writeFileSync(files.chart, png('f8cf'));
  fs.writeFileSync(files.poster, png('f8ce'));
  const frag = (docId: string, ordinal: number, f: Partial<Fragment>): Fragment => ({
    id: `${docId}#${ordinal}`,
    docId,
    kind: 'text',
    text: '',
    section: [],
    ordinal,
    attached: [],
    ...f,
  });
  const docs: Record<string, Fragment[]> = {
    Elections: [
      frag('Elections', 0, { text: 'Elections in Hesse were held in 2018. The Greens gained seats.' }),
      frag('Elections', 1, {
        kind: 'image',
        label: 'Figure 1',
        ocrText: 'Greens: 45\nSPD: 47',
        media: { path: files.chart, mime: 'image/png', origin: 'file' },
      }),
    ],
    Nightwing: [
      frag('Nightwing', 0, { text: 'Nightwing is a 1979 film directed by Arthur Hiller.' }),
      frag('Nightwing', 1, {
        kind: 'image',
        caption: 'Poster of Nightwing',
        ocrText: 'Nightwing\nColumbia Pictures',
        media: { path: files.poster, mime: 'image/png', origin: 'file' },
      }),
      // An image whose file is gone: never sent, its offline facts still count.
      frag('Nightwing', 2, { kind: 'image', ocrText: 'Arthur Hiller', media: { path: path.join(dir, 'missing.png'), mime: 'image/png', origin: 'file' } }),
    ],
  };
  const source: GraphSource = {
    id: 'vision-fixture',
    fingerprint: 'fp-1',
    documents: () => Object.keys(docs).map((id) => ({ id, title: id })),
    fragmentsOf: (d) => docs[d] ?? [],
  };
  return { source, files };
}

const sentImage = (r: RecordedRequest): string | undefined =>
  (r.body?.messages?.[0]?.content as { type: string; image_url?: { url: string } }[] | undefined)?.find((p) => p.type === 'image_url')?.image_url?.url;

const factKey = (f: MicroFact) => `${f.fragmentId}|${f.u}|${f.r}|${f.v}`;

test('vision replies: {"facts": [...]} read through fences and cuts; an unreadable reply is an error, an empty list is not', () => {
  const ok = parseVisionFacts('```json\n{"facts": [{"subject": "SPD bar", "relation": "left of", "object": "Greens bar"}, {"subject": "x"}]}\n```');
  assert.deepEqual(ok, { triples: [['SPD bar', 'left of', 'Greens bar']] });
  const cut = parseVisionFacts('{"facts": [{"subject": "man", "relation": "holds", "object": "gun"}, {"subject": "ma');
  assert.deepEqual(cut.triples, [['man', 'holds', 'gun']], 'a reply cut by the token limit keeps its complete facts');
  assert.deepEqual(parseVisionFacts('[["woman", "wears", "red hat"]]').triples, [['woman', 'wears', 'red hat']]);
  assert.deepEqual(parseVisionFacts('{"facts": []}'), { triples: [] });
  assert.deepEqual(parseVisionFacts('{"facts": [{"subject": "SPD", "relation": "seats", "object": 47}]}').triples, [['SPD', 'seats', '47']]);
  assert.match(parseVisionFacts('I cannot see any image.').error ?? '', /not \{"facts"/);
  assert.match(parseVisionFacts('{"answer": "a chart"}').error ?? '', /not \{"facts"/);
  assert.match(parseVisionFacts('{"facts": [{"subject": "a"}, 3]}').error ?? '', /none of the 2 facts/);
});

test('microImages = "vision" over HTTP: VLM facts land with their asset, a malformed reply is reported and the OCR facts stay', async () => {
  const dir = ownScratch('kf-micro-vision-');
  const { source, files } = fixture(dir);
  const chartUrl = `data:image/png;base64,${fs.readFileSync(files.chart).toString('base64')}`;
  const server = await ScriptedServer.start();
  server.on({
    match: (r) => sentImage(r) === chartUrl,
    reply: { text: '{"facts": [{"subject": "SPD bar", "relation": "taller than", "object": "Greens bar"}]}' },
  });
  server.on({ reply: { text: 'Sorry, I can only describe: a poster with a wing.' } });
  const router = routerFor(server);
  try {
    const ocr = await buildDualGraph(source);
    const vision = visionFactsFromModel(router.forStage('vision'), { assetPath: (a) => a.path });
    const logged: string[] = [];
    const g = await buildDualGraph(source, { vision, log: (l) => logged.push(l) });

    const added = g.micro.filter((f) => f.r === 'taller than');
    assert.equal(added.length, 1, 'the VLM fact is in the micro graph');
    assert.deepEqual([added[0].u, added[0].v, added[0].fragmentId, added[0].kind], ['SPD bar', 'Greens bar', 'Elections#1', 'image']);
    assert.equal(g.docs[added[0].doc].id, 'Elections', 'with the document of its asset');

    const ocrFacts = ocr.micro.map(factKey);
    assert.ok(
      ocrFacts.some((k) => k.startsWith('Nightwing#1|')),
      'the fixture has OCR facts on the poster',
    );
    const kept = new Set(g.micro.map(factKey));
    assert.deepEqual(
      ocrFacts.filter((k) => !kept.has(k)),
      [],
      'every OCR fact is kept',
    );
    assert.equal(g.micro.length, ocr.micro.length + 1);

    assert.deepEqual(
      vision.report.errors.map((e) => e.fragmentId),
      ['Nightwing#1'],
    );
    assert.match(vision.report.errors[0].error, /not \{"facts"/);
    assert.ok(
      logged.some((l) => l.includes('Nightwing#1') && l.includes('offline facts kept')),
      logged.join('\n'),
    );
    assert.deepEqual(
      [g.meta.stats.visionAssets, g.meta.stats.visionSent, g.meta.stats.visionFacts, g.meta.stats.visionErrors],
      [3, 2, 1, 1],
      'three images, two with a file sent, one fact, one unreadable reply',
    );

    const chats = server.chatRequests();
    assert.equal(chats.length, 2, 'one call per image asset that has a file');
    const urls = chats.map(sentImage);
    assert.deepEqual(
      urls.map((u) => u?.slice(0, 22)),
      ['data:image/png;base64,', 'data:image/png;base64,'],
      'each request carries its image',
    );
    assert.equal(urls[0], chartUrl);
    assert.equal(urls[1], `data:image/png;base64,${fs.readFileSync(files.poster).toString('base64')}`);
    assert.match(JSON.stringify(chats[0].body.messages[0].content), /\\"facts\\"|"facts"/);
    assert.deepEqual(chats[0].body.response_format, { type: 'json_object' });

    assert.equal(g.meta.settings.microImages, 'vision');
    assert.equal(ocr.meta.settings.microImages, undefined, 'the default graph records no image setting (output unchanged)');
  } finally {
    await router.close();
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('vision replies are cached by the model layer: a second build sends nothing and gives the same facts', async () => {
  const dir = ownScratch('kf-micro-vision-cache-');
  const { source } = fixture(dir);
  const server = await ScriptedServer.start();
  server.on({ reply: { text: '{"facts": [{"subject": "bar", "relation": "colour", "object": "green"}]}' } });
  const cacheFile = path.join(dir, 'cache.sqlite');
  const build = async () => {
    const router = routerFor(server, {}, { cacheFile, cacheMode: 'read-write' });
    try {
      return await buildDualGraph(source, { vision: visionFactsFromModel(router.forStage('vision'), { assetPath: (a) => a.path }) });
    } finally {
      await router.close();
    }
  };
  try {
    const first = await build();
    const sent = server.chatRequests().length;
    assert.equal(sent, 2);
    const second = await build();
    assert.equal(server.chatRequests().length, sent, 'no request the second time');
    assert.deepEqual(second.micro, first.micro);
    assert.equal(first.micro.filter((f) => f.r === 'colour').length, 2);
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('offline backend: the micro-vision role answers from OCR and caption, so the vision graph equals the OCR graph', async () => {
  registerOfflineHandlers();
  const dir = ownScratch('kf-micro-vision-offline-');
  try {
    const { source } = fixture(dir);
    const ocr = await buildDualGraph(source);
    const vision = visionFactsFromModel(new InProcessModel('vision'), { assetPath: (a) => a.path });
    const g = await buildDualGraph(source, { vision });
    assert.equal(vision.report.sent, 2);
    assert.deepEqual(vision.report.errors, []);
    assert.deepEqual(vision.report.backends, { offline: 2 }, 'the report says the replies came from the offline stand-in');
    assert.ok(ocr.micro.length > 0);
    assert.deepEqual(g.micro, ocr.micro, 'offline replies repeat the OCR facts: nothing added');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('graph setting microImages: "vision" gets its own artifact key, the default keeps the old one, anything else is refused', () => {
  const key = (raw: Record<string, unknown>) => artifactKey('dualg-graph', 1, { index: 'i' }, graphSettings(raw) as unknown as Record<string, unknown>);
  assert.equal(key({ microImages: 'ocr' }), key({}));
  assert.deepEqual(graphSettings({}), { tau: 0.8, openie: 'rules' });
  assert.notEqual(key({ microImages: 'vision' }), key({}));
  assert.throws(() => graphSettings({ microImages: 'vlm' }), /microImages must be "ocr" or "vision"/);
});

test('artifact dualg-graph with microImages = "vision" on a built index: the image file is found through the index manifest', async () => {
  const dir = ownScratch('kf-micro-vision-index-');
  const corpus = path.join(dir, 'corpus');
  fs.mkdirSync(path.join(corpus, 'img'), { recursive: true });
  fs.writeFileSync(path.join(corpus, 'img', 'chart.png'), png('f8cf'));
  fs.writeFileSync(path.join(corpus, 'report.md'), '# Hesse election\n\nThe Greens gained seats in Hesse.\n\n![Figure 1: Seats by party](img/chart.png)\n');
  const indexDir = path.join(dir, 'index');
  await buildIndex({ corpusDir: corpus, outDir: indexDir, embedder: 'hash', options: { ingest: { ocr: 'off' }, hashDim: 64 } });
  const server = await ScriptedServer.start();
  server.on({ reply: { text: '{"facts": [{"subject": "SPD bar", "relation": "taller than", "object": "Greens bar"}]}' } });
  const router = routerFor(server);
  try {
    registerDualgArtifacts();
    const store = new ArtifactStore({ root: path.join(dir, 'artifacts') });
    const reports: unknown[] = [];
    const open = async (settings: Record<string, unknown>, models?: unknown) => {
      const request = { ...graphRequest(indexDir, settings), args: { indexDir, models } };
      const ref = await store.prepare(DUALG_GRAPH_KIND, request);
      reports.push(
        fs.existsSync(path.join(ref.dir, VISION_REPORT_FILE)) ? JSON.parse(fs.readFileSync(path.join(ref.dir, VISION_REPORT_FILE), 'utf8')) : undefined,
      );
      return (await store.open<DualGraph>(DUALG_GRAPH_KIND, request, { indexDir })).value;
    };
    const g = await open({ microImages: 'vision' }, router);
    const fact = g.micro.find((f) => f.r === 'taller than');
    assert.ok(fact, 'the VLM fact is in the stored graph');
    assert.equal(fact!.kind, 'image');
    assert.equal(g.meta.stats.visionSent, 1);
    assert.equal(sentImage(server.chatRequests()[0]), `data:image/png;base64,${png('f8cf').toString('base64')}`);
    assert.deepEqual(reports[0], { assets: 1, sent: 1, facts: 1, errors: [], backends: { openai: 1 } }, 'the vision report is stored beside the graph');
    const ocr = await open({});
    assert.equal(reports[1], undefined, 'no vision report for the default graph');
    assert.equal(ocr.micro.filter((f) => f.r === 'taller than').length, 0, 'the default graph is another artifact, without VLM facts');
    assert.equal(server.chatRequests().length, 1, 'the default graph calls no model');
    await assert.rejects(open({ microImages: 'vision', tau: 0.9 }), /needs the model layer/);
    // kf prepare <experiment>: the setting comes from the experiment's index.settings, as the retrievers read it.
    const experiment = { index: { settings: { microImages: 'vision' } } } as unknown as Parameters<NonNullable<typeof dualgGraphKind.request>>[0]['experiment'];
    const fromExperiment = await dualgGraphKind.request!({ experiment, options: { index: indexDir }, models: router, log: () => undefined });
    assert.equal(fromExperiment.settings?.microImages, 'vision');
    assert.equal(store.keyOf(DUALG_GRAPH_KIND, fromExperiment), store.keyOf(DUALG_GRAPH_KIND, graphRequest(indexDir, { microImages: 'vision' })));
  } finally {
    await router.close();
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a table known only as an image is parsed too (facts of kind table); a parsed table and a text fragment are not sent', async () => {
  const dir = ownScratch('kf-micro-vision-table-');
  try {
    const file = path.join(dir, 'table.png');
    fs.writeFileSync(file, png('f8cf'));
    const asked: string[] = [];
    const model = {
      id: 'fake',
      backend: 'openai',
      chat: async (req: { task?: Record<string, unknown> }) => {
        asked.push(String(req.task?.fragmentId));
        return { text: '{"facts": [{"subject": "2019", "relation": "revenue", "object": "$4.2M"}]}' };
      },
    } as unknown as import('../../lib/model-api/types').ChatModel;
    const media = { path: file, mime: 'image/png', origin: 'file' as const };
    const base = { docId: 'd', section: [], attached: [], text: '' };
    const frags: Fragment[] = [
      { ...base, id: 'd#0', ordinal: 0, kind: 'text', text: 'Revenue grew.', media },
      { ...base, id: 'd#1', ordinal: 1, kind: 'table', media },
      { ...base, id: 'd#2', ordinal: 2, kind: 'table', media, table: { header: ['Year', 'Revenue'], rows: [['2019', '$4.2M']] } },
    ];
    const vision = visionFactsFromModel(model, { assetPath: (a) => a.path });
    const facts = await vision.factsOf(frags, 'Annual report', []);
    assert.deepEqual(asked, ['d#1']);
    assert.deepEqual(facts, [{ u: '2019', r: 'revenue', v: '$4.2M', fragmentId: 'd#1', kind: 'table' }]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
