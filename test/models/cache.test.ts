/** The SQLite reply cache: concurrent writers (two processes) and a writer killed mid-run. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ModelCache } from '../../lib/models/cache';
import { tempDir } from './helpers';

const helper = path.join(__dirname, `cache-writer.helper${path.extname(__filename)}`);
const execArgv = process.execArgv.filter((a) => !a.startsWith('--test'));

function run(file: string, prefix: string, count: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = fork(helper, [file, prefix, String(count)], { execArgv, stdio: 'pipe' });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
}

test('two processes writing the same cache at once lose nothing (WAL + busy timeout)', async () => {
  const file = path.join(tempDir(), 'shared.sqlite');
  ModelCache.open(file).close();
  const codes = await Promise.all([run(file, 'a', 300), run(file, 'b', 300)]);
  assert.deepEqual(codes, [0, 0]);
  const cache = ModelCache.open(file);
  const s = cache.stats();
  assert.equal(s.replies, 600);
  assert.deepEqual(s.byStage, { a: 300, b: 300 });
  assert.equal(cache.get('b-299')!.usage.promptTokens, 299);
  cache.close();
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
});

test('a writer killed mid-run leaves a readable cache with every committed reply intact', async () => {
  const file = path.join(tempDir(), 'crash.sqlite');
  const child = fork(helper, [file, 'k', '0'], { execArgv, stdio: 'pipe' });
  await new Promise<void>((resolve) => {
    child.stdout!.on('data', (d: Buffer) => {
      if (Number(d.toString().trim().split('\n').pop()) >= 50) resolve();
    });
  });
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  const cache = ModelCache.open(file);
  const s = cache.stats();
  assert.ok(s.replies >= 50, `${s.replies} replies survived`);
  for (let i = 0; i < 50; i++) assert.match(cache.get(`k-${i}`)!.text, new RegExp(`^reply k ${i} `));
  cache.close();
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
});
