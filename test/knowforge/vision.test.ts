/**
 * The vision stage behind read_media: one asset and one question per call;
 * tables are read as "header: cell" rows; an image goes to the model as an
 * image part when its file is found through the index manifest (PDF assets
 * under <index>/assets, source files under the corpus root).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { indexAssetResolver, makeReadMedia, tableLines } from '../../lib/knowforge/vision';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { routerFor } from '../models/helpers';
import { ownScratch } from '../_shared/scratch';
import { toyKb, TOY_FRAGMENTS } from './toy-kb';

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d4944415478da63f8cfc0f01f0005000201a0e4ab3b0000000049454e44ae426082',
  'hex',
);

test('tables are read as rows; an image file found through the index manifest is sent as an image part', async () => {
  assert.deepEqual(tableLines({ header: ['Actor', 'Role'], rows: [['Ann Lee', 'Captain']] }), ['Actor: Ann Lee; Role: Captain']);
  // A fake index folder: CURRENT -> build-000001/manifest.json naming the corpus root.
  const root = ownScratch('kf-vision-');
  const index = path.join(root, 'index');
  const corpus = path.join(root, 'corpus');
  fs.mkdirSync(path.join(index, 'build-000001'), { recursive: true });
  fs.mkdirSync(path.join(corpus, 'img'), { recursive: true });
  fs.writeFileSync(path.join(index, 'CURRENT'), 'build-000001');
  fs.writeFileSync(path.join(index, 'build-000001', 'manifest.json'), JSON.stringify({ kind: 'kf-index', corpus: { kind: 'directory', path: corpus } }));
  fs.writeFileSync(path.join(corpus, 'img', 'chart.png'), PNG);
  const resolve = indexAssetResolver(`${index}#build-000001`);
  assert.ok(resolve, 'an index folder gives a resolver');
  assert.equal(resolve!({ path: 'img/chart.png', mime: 'image/png', origin: 'file' }, TOY_FRAGMENTS[1]), path.join(corpus, 'img', 'chart.png'));
  assert.equal(resolve!({ path: 'd/p1.png', mime: 'image/png', origin: 'pdf-embedded' }, TOY_FRAGMENTS[1]), path.join(index, 'assets', 'd', 'p1.png'));
  assert.equal(indexAssetResolver('toy'), undefined, 'a view that is not an index folder: descriptions only');

  const server = await ScriptedServer.start();
  server.on({ reply: { text: 'Where: the 1951 bar.\nAnswer: 30' } });
  const router = routerFor(server);
  try {
    const fragments = TOY_FRAGMENTS.map((f) =>
      f.id === 'alpha#1' ? { ...f, media: { path: 'img/chart.png', mime: 'image/png', origin: 'file' as const } } : f,
    );
    const kb = { ...toyKb(fragments), id: `${index}#build-000001` };
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
