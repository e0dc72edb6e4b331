/**
 * The one plug-in loader (lib/pipeline/plugins.ts): the built-in manifests are found on disk (no
 * list names them) and load once, in their `order`; a module in KF_PLUGINS that is missing or
 * exports no manifest fails with a KfError naming it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findBuiltInPlugins, loadedPlugins, loadPlugins } from '../../lib/pipeline/plugins';
import { ownScratch } from '../_shared/scratch';
import { isKfError } from '../../lib/util/errors';

const NO_MANIFEST = path.join(__dirname, 'fixtures', `no-manifest${path.extname(__filename)}`);

function withPlugins<T>(value: string, f: () => T): T {
  const before = process.env.KF_PLUGINS;
  process.env.KF_PLUGINS = value;
  try {
    return f();
  } finally {
    if (before === undefined) delete process.env.KF_PLUGINS;
    else process.env.KF_PLUGINS = before;
  }
}

test('the built-in plug-ins load once, in their order, each with what it adds', () => {
  const names = loadedPlugins().map((p) => p.name);
  assert.deepEqual(names.slice(0, 4), ['knowforge', 'index', 'dualg', 'corpus']);
  loadPlugins();
  assert.equal(loadedPlugins().length, names.length, 'loading again adds nothing');
  const dualg = loadedPlugins().find((p) => p.name === 'dualg')!;
  assert.ok(dualg.retrievers?.some((r) => r.name === 'dualg'));
  assert.deepEqual(dualg.artifactKinds?.map((k) => k.kind).sort(), ['dualg-graph', 'dualg-name-vectors', 'gnn-checkpoint']);
  assert.ok(
    loadedPlugins()
      .find((p) => p.name === 'knowforge')!
      .configurations?.some((c) => c.name === 'M5'),
  );
});

test('a KF_PLUGINS module that is missing or has no manifest fails naming it', () => {
  const missing = path.join(__dirname, 'fixtures', 'does-not-exist.js');
  assert.throws(
    () => withPlugins(missing, loadPlugins),
    (e: unknown) => isKfError(e) && e.code === 'plugin_module' && e.message.includes(missing),
  );
  assert.throws(
    () => withPlugins(NO_MANIFEST, loadPlugins),
    (e: unknown) => isKfError(e) && e.code === 'plugin_manifest' && e.message.includes('no-manifest'),
  );
});

test("the built-ins are every lib/<m>/plugin file and the pipeline folder's *-plugin files, found next to the loader", () => {
  const ext = path.extname(__filename);
  const lib = path.resolve(__dirname, '..', '..', 'lib');
  assert.deepEqual(relative(lib, findBuiltInPlugins(path.join(lib, 'pipeline'), ext)), [
    `dualg/plugin${ext}`,
    `knowforge/plugin${ext}`,
    `pipeline/corpus-plugin${ext}`,
    `pipeline/index-plugin${ext}`,
  ]);
  // A new method folder is found the day it appears; the manifest type (pipeline/plugin) is no manifest.
  const tmp = ownScratch();
  try {
    for (const f of [
      'toy/plugin.ts',
      'toy/pipeline.ts',
      'no-manifest/types.ts',
      'pipeline/plugin.ts',
      'pipeline/extra-plugin.ts',
      'pipeline/extra-plugin.js',
    ]) {
      fs.mkdirSync(path.dirname(path.join(tmp, f)), { recursive: true });
      fs.writeFileSync(path.join(tmp, f), '');
    }
    assert.deepEqual(relative(tmp, findBuiltInPlugins(path.join(tmp, 'pipeline'), '.ts')), ['pipeline/extra-plugin.ts', 'toy/plugin.ts']);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

function relative(root: string, files: string[]): string[] {
  return files.map((f) => path.relative(root, f).replace(/\\/g, '/'));
}
