/**
 * A method's notebook kit (lib/pipeline/method-kit.ts): reached by name through the loaded
 * manifests, its module loaded on the first call only (loading the manifests loads none of it);
 * an unknown name or a method without a kit is a KfError saying what to do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { method } from '../../lib/pipeline/method-kit';
import { loadPlugins, registerPlugin } from '../../lib/pipeline/plugins';
import { isKfError } from '../../lib/util/errors';
import { nonEmpty } from '../_shared/non-empty';

const kitLoaded = () => Object.keys(require.cache).some((f) => /knowforge[\\/]reports[\\/]notebook-kit\.(js|ts)$/.test(f));

test("KnowForge's kit: not loaded with the manifests, loaded by kf.method('knowforge'), the same module each call", () => {
  loadPlugins();
  assert.equal(kitLoaded(), false, 'loading the manifests loaded the kit');
  const kit = method('knowforge');
  assert.equal(kitLoaded(), true);
  assert.equal(method('knowforge'), kit);
  assert.deepEqual(kit.capsOfLabel('4+1'), { locator: 4, reader: 1 });
  assert.ok(nonEmpty(kit.CONFIGURATIONS, 'its configuration rows').some((c) => c.name === 'M5'));
  assert.deepEqual(Object.keys(kit.ATTRIBUTION_CLASSES), ['A', 'B', 'C', 'D', 'E', 'F', 'G'], 'the error classes of notebook 29');
});

test('an unknown method names the nearest; a method without a kit says which have one', () => {
  assert.throws(
    () => method('knowforg'),
    (e: unknown) => isKfError(e) && e.code === 'method_unknown' && /"knowforg"/.test(e.message) && /did you mean "knowforge"/.test(e.hint),
  );
  registerPlugin({ name: 'kitless', description: 'a manifest with no notebook kit (this test)' });
  assert.throws(
    () => method('kitless'),
    (e: unknown) => isKfError(e) && e.code === 'method_no_kit' && /kitless/.test(e.message) && /knowforge/.test(e.hint),
  );
});
