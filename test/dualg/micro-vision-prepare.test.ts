/** `kf prepare dualg-graph --set microImages=vision` without an experiment: the vision stage comes from the environment. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { register as registerDualgArtifacts } from '../../lib/dualg/artifacts';
import { DUALG_GRAPH_KIND, loadGraph } from '../../lib/dualg/graph/store';
import { VISION_REPORT_FILE } from '../../lib/dualg/graph/micro-vision';
import type { DualGraph } from '../../lib/dualg/graph/types';
import { buildIndex } from '../../lib/index/build';
import { ArtifactStore } from '../../lib/pipeline/artifact-store';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { prepareKind } from '../../lib/run/prepare';
import { ownScratch } from '../_shared/scratch';

// A 1x1 PNG (as in micro-vision.test.ts); its content is never read: the VLM reply is scripted.
const png = () =>
  Buffer.from(
    `89504e470d0a1a0a0000000d4948445200000001000000010806000000` + `1f15c4890000000d4944415478da63f8cfc0f01f0005000201a0e4ab3b0000000049454e44ae426082`,
    'hex',
  );

test('kf prepare dualg-graph --set microImages=vision: the environment names the vision endpoint; without one the offline stand-in answers', async () => {
  const dir = ownScratch('kf-micro-vision-prepare-');
  const corpus = path.join(dir, 'corpus');
  fs.mkdirSync(path.join(corpus, 'img'), { recursive: true });
  fs.writeFileSync(path.join(corpus, 'img', 'chart.png'), png());
  fs.writeFileSync(path.join(corpus, 'report.md'), '# Hesse election\n\nThe Greens gained seats in Hesse.\n\n![Figure 1: Seats by party](img/chart.png)\n');
  const indexDir = path.join(dir, 'index');
  await buildIndex({ corpusDir: corpus, outDir: indexDir, embedder: 'hash', options: { ingest: { ocr: 'off' }, hashDim: 64 } });
  const server = await ScriptedServer.start();
  server.on({ reply: { text: '{"facts": [{"subject": "SPD bar", "relation": "taller than", "object": "Greens bar"}]}' } });
  try {
    registerDualgArtifacts();
    const env = { KF_VISION_BASE_URL: server.url, KF_VISION_MODEL: 'scripted-vlm', OPENAI_API_KEY: 'sk-test', KF_CACHE: 'off' };
    const store = new ArtifactStore({ root: path.join(dir, 'artifacts') });
    const done = await prepareKind(DUALG_GRAPH_KIND, { index: indexDir, microImages: 'vision' }, { store, env });
    assert.equal(done.built, true);
    const report = JSON.parse(fs.readFileSync(path.join(done.dir, VISION_REPORT_FILE), 'utf8'));
    assert.deepEqual(report.backends, { openai: 1 }, 'the image went to the endpoint the environment names');
    assert.equal(server.chatRequests().length, 1);
    assert.equal(server.chatRequests()[0].body.model, 'scripted-vlm');
    const g: DualGraph = loadGraph(done.dir);
    assert.ok(
      g.micro.some((f) => f.r === 'taller than'),
      'the VLM fact is in the stored graph',
    );
    // No endpoint in the environment: the offline stand-in answers (labelled offline), in its own store.
    const offlineStore = new ArtifactStore({ root: path.join(dir, 'artifacts-offline') });
    const offline = await prepareKind(DUALG_GRAPH_KIND, { index: indexDir, microImages: 'vision' }, { store: offlineStore, env: { KF_CACHE: 'off' } });
    const offlineReport = JSON.parse(fs.readFileSync(path.join(offline.dir, VISION_REPORT_FILE), 'utf8'));
    assert.deepEqual(offlineReport.backends, { offline: 1 });
    assert.equal(server.chatRequests().length, 1, 'nothing more was sent');
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
