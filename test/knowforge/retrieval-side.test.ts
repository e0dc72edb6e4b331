/**
 * `kf eval retrieval --config <configuration>` runs only a pipeline's retrieval
 * side (Locator, judge, bridge searches; offline policies) and prints the
 * --mode JSON plus recallAll and docFound; every search counts for R@all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { demoEvalRetrievalArgs, ownScratch, tinyDemoWorld } from '../_shared/scratch';
import { kfInProcess } from '../_shared/cli-in-process';

test('kf eval retrieval --config M5: first-search R@k, R@all and doc found over every search', { timeout: 5 * 60_000 }, async () => {
  const world = await tinyDemoWorld();
  // Its own index folder: kf eval retrieval builds with its own options, which must not rebuild the shared one.
  const indexDir = path.join(ownScratch('kf-retrieval-side-'), 'index');
  const common = [...demoEvalRetrievalArgs(world.dir), '--index', indexDir, '--offline', '--limit', '8', '--quiet'];
  const side = await kfInProcess([...common, '--config', 'M5']);
  assert.equal(side.code, 0, side.err);
  const s = JSON.parse(side.out.trim().split('\n').pop()!);
  const one = await kfInProcess([...common, '--mode', 'hybrid+graph']);
  const o = JSON.parse(one.out.trim().split('\n').pop()!);
  assert.ok(s.n > 0);
  assert.equal(s.mode, 'pipeline:M5');
  for (const k of ['recallAll', 'docFound']) assert.equal(typeof s[k], 'number', k);
  assert.ok(s.recallAll >= s.recall['8'], 'R@all covers at least the first search');
  assert.ok(s.searchesPerQuestion > 1, 'the Locator searched more than once');
  assert.deepEqual(Object.keys(s.recall), Object.keys(o.recall), 'the same R@k keys as --mode');
});
