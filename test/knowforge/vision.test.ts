/**
 * The vision stage behind read_media: one asset and one question per call;
 * tables are read as "header: cell" rows; an image goes to the model as an
 * image part when its file is found through the index manifest (PDF assets
 * under <index>/assets, source files under the corpus root).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { indexAssetResolver, makeReadMedia, tableLines } from '../../lib/answer/vision';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { routerFor } from '../models/helpers';
import { ownScratch } from '../_shared/scratch';
import { toyFragmentsWithChartFile, toyIndexWithChart, toyKb, TOY_FRAGMENTS } from './toy-kb';

test('tables are read as rows; an image file found through the index manifest is sent as an image part', async () => {
  assert.deepEqual(tableLines({ header: ['Actor', 'Role'], rows: [['Ann Lee', 'Captain']] }), ['Actor: Ann Lee; Role: Captain']);
  // A fake index folder: CURRENT -> build-000001/manifest.json naming the corpus root.
  const { id, index, corpus } = toyIndexWithChart(ownScratch('kf-vision-'));
  const resolve = indexAssetResolver(id);
  assert.ok(resolve, 'an index folder gives a resolver');
  assert.equal(resolve!({ path: 'img/chart.png', mime: 'image/png', origin: 'file' }, TOY_FRAGMENTS[1]), path.join(corpus, 'img', 'chart.png'));
  assert.equal(resolve!({ path: 'd/p1.png', mime: 'image/png', origin: 'pdf-embedded' }, TOY_FRAGMENTS[1]), path.join(index, 'assets', 'd', 'p1.png'));
  assert.equal(indexAssetResolver('toy'), undefined, 'a view that is not an index folder: descriptions only');

  const server = await ScriptedServer.start();
  server.on({ reply: { text: 'Where: the 1951 bar.\nAnswer: 30' } });
  const router = routerFor(server);
  try {
    const kb = { ...toyKb(toyFragmentsWithChartFile()), id };
    const read = makeReadMedia(router.forStage('vision'), kb);
    assert.match((await read('alpha#1', 'box office in 1951?')).text, /Answer: 30/);
    assert.match((await read('alpha#2', 'who plays the pilot?')).text, /Answer: 30/);
    const [image, table] = server.requests.filter((r) => r.kind === 'chat');
    assert.ok(JSON.stringify(image.body.messages[0].content).includes('image_url'), 'the image travels as an image part');
    assert.match(JSON.stringify(table.body.messages[0].content), /Actor: Tom Hart; Role: Pilot/);
    assert.equal(server.requests.filter((r) => r.kind === 'chat').length, 2, 'one call per asset');
  } finally {
    await router.close();
    await server.close();
  }
});
