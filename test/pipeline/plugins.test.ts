/**
 * The one plug-in loader (lib/pipeline/plugins.ts): the built-in manifests load once, in order;
 * a module in KF_PLUGINS that is missing or exports no manifest fails with a KfError naming it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { loadedPlugins, loadPlugins } from '../../lib/pipeline/plugins';
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

test('the built-in plug-ins load once, in the listed order, each with what it adds', () => {
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
