/**
 * The pipeline contract: configurations are rows of typed settings over a
 * family; an experiment's pipeline.settings / caps are validated by the family's
 * zod schema when the config LOADS (unknown or ill-typed keys name the key and
 * the file), and the runner's lookup builds the configured pipeline.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { loadExperiment } from '../../lib/run/config';
import { getPipeline, listPipelines } from '../../lib/run/registry';
import { checkSettings, configuration, listConfigurations, registerConfiguration, registerFamily, unregisterConfiguration } from '../../lib/pipeline/registry';
import type { PipelineSpec } from '../../lib/pipeline/spec';
import { KfError } from '../../lib/util/errors';

function experimentFile(body: string): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-registry-'));
  const file = path.join(dir, 'exp.toml');
  fs.writeFileSync(file, `seed = 1\n[benchmark]\nname = "demo"\n${body}\n`);
  return { dir, file };
}

function loadError(body: string): { err: KfError; file: string } {
  const { file } = experimentFile(body);
  try {
    loadExperiment(file);
  } catch (e) {
    assert.ok(e instanceof KfError, `expected a KfError, got ${e}`);
    return { err: e, file };
  }
  assert.fail('the experiment should not load');
}

test('the one-shot baselines are rows of one family, with their presets', () => {
  const names = listConfigurations().map((c) => c.name);
  for (const n of ['S0', 'S1', 'S3', 'S4v1', 'S4']) assert.ok(names.includes(n), `${n} is a configuration`);
  assert.deepEqual(configuration('S4')?.settings, { mode: 'hybrid+graph', template: 'm3docrag' });
  const s0 = checkSettings('S0');
  assert.ok(s0.ok === true);
  assert.equal(s0.settings.mode, 'none');
  assert.equal(s0.settings.topk, 8, 'family defaults fill what the row does not set');
  assert.equal(getPipeline('S0').needsIndex, false);
  assert.equal(getPipeline('S4').needsIndex, true);
  assert.equal(getPipeline('S4').description, configuration('S4')?.description);
  assert.ok(listPipelines().some((p) => p.name === 'S4v1' && p.family === 'knowforge-one-shot'));
});

test('a misspelled setting fails at load, naming the dotted key and the file, with a did-you-mean', () => {
  const { err, file } = loadError('[pipeline]\nname = "S4"\nsettings = { topkk = 5 }');
  assert.equal(err.code, 'bad_experiment');
  assert.match(err.message, /pipeline\.settings\.topkk/);
  assert.match(err.message, /not a setting of S4/);
  assert.ok(err.message.includes(path.basename(file)), err.message);
  assert.equal(err.concerns, file);
  assert.match(err.hint, /did you mean "pipeline\.settings\.topk"\?/);
});

test('ill-typed settings and caps fail at load with the key; valid overrides pass', () => {
  const bad = loadError('[pipeline]\nname = "S3"\nsettings = { template = "fancy" }').err;
  assert.match(bad.message, /pipeline\.settings\.template/);
  assert.match(bad.hint, /"ours"/);
  const neg = loadError('[pipeline]\nname = "S3"\nsettings = { topk = -2 }').err;
  assert.match(neg.message, /pipeline\.settings\.topk/);
  const cap = loadError('[pipeline]\nname = "S3"\n[caps]\npoolChar = 100').err;
  assert.match(cap.message, /caps\.poolChar/);
  assert.match(cap.hint, /poolChars/);
  const retr = loadError('[pipeline]\nname = "S3"\nsettings = { retriever = "dnse" }').err;
  assert.match(retr.message, /pipeline\.settings\.retriever/);
  assert.match(retr.message, /did you mean "dense"/);
  const { file } = experimentFile('[pipeline]\nname = "S3"\nsettings = { topk = 5, template = "m3docrag" }\n[caps]\npoolChars = 9000');
  const ok = loadExperiment(file);
  assert.deepEqual(ok.config.pipeline.settings, { topk: 5, template: 'm3docrag' }, 'the config keeps what was written (the hash does not move)');
  const checked = checkSettings('S3', { settings: ok.config.pipeline.settings, caps: ok.config.caps });
  assert.ok(checked.ok === true);
  assert.equal(checked.settings.poolChars, 9000);
  assert.equal(checked.settings.mode, 'hybrid');
});

test('a new family and rows plug in as data; a broken row fails at registration', () => {
  const spec: PipelineSpec = {
    family: 'test-echo',
    description: 'echo',
    settings: z.strictObject({ word: z.string().default('hi') }),
    needsIndex: () => false,
    create: (name, s) => ({
      name,
      description: '',
      run: async () => ({ prediction: String((s as { word: string }).word), finalAnswer: String((s as { word: string }).word) }),
    }),
  };
  registerFamily(spec);
  registerConfiguration({ name: 'echo-a', family: 'test-echo', description: 'says a', settings: { word: 'a' } });
  try {
    assert.equal(getPipeline('echo-a').description, 'says a');
    assert.throws(() => registerConfiguration({ name: 'echo-b', family: 'test-echo', description: '', settings: { wrd: 'b' } }), /echo-b/);
    assert.throws(() => registerConfiguration({ name: 'echo-c', family: 'nope', description: '', settings: {} }), /family nope/);
    assert.throws(
      () => getPipeline('echo-a', { word: 3 }),
      (e: unknown) => e instanceof KfError && e.code === 'bad_setting' && /word/.test(e.message),
    );
  } finally {
    unregisterConfiguration('echo-a');
  }
});
