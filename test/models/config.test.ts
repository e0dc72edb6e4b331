import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { normalizeModelsConfig, resolveStage } from '../../lib/models/config';
import { readModelsConfigFile } from '../../lib/models/config-file';
import { isKfError } from '../../lib/util/errors';

const noEnv = {} as NodeJS.ProcessEnv;

test('no endpoint at any level: every stage is offline, labelled as such', () => {
  const r = resolveStage('judge', {}, noEnv);
  assert.equal(r.backend, 'offline');
  assert.equal(r.model, 'offline');
  assert.equal(r.baseUrl, undefined);
  assert.match(r.provenance.backend!, /no endpoint configured/);
});

test('precedence stage > experiment.stages > experiment.defaults > defaults.stages > defaults.defaults > environment, per field', () => {
  const env = { OPENAI_BASE_URL: 'http://env:1/v1', KF_MODEL: 'env-model', KF_TIMEOUT_MS: '5000', KF_PROTOCOL: 'tools' } as NodeJS.ProcessEnv;
  const defaults = normalizeModelsConfig({ defaults: { model: 'proj-model', concurrency: 2 }, stages: { judge: { maxAttempts: 7 } } });
  const experiment = normalizeModelsConfig({ defaults: { baseUrl: 'http://exp:2/v1' }, stages: { judge: { model: 'exp-judge' } } });
  const r = resolveStage('judge', { stage: { temperature: 0.5 }, experiment, defaults }, env);
  assert.equal(r.backend, 'openai');
  assert.equal(r.temperature, 0.5);
  assert.equal(r.provenance.temperature, 'stage');
  assert.equal(r.model, 'exp-judge');
  assert.equal(r.provenance.model, 'experiment.stages.judge');
  assert.equal(r.baseUrl, 'http://exp:2/v1');
  assert.equal(r.provenance.baseUrl, 'experiment.defaults');
  assert.equal(r.maxAttempts, 7);
  assert.equal(r.provenance.maxAttempts, 'defaults.stages.judge');
  assert.equal(r.concurrency, 2);
  assert.equal(r.provenance.concurrency, 'defaults.defaults');
  assert.equal(r.timeoutMs, 5000);
  assert.equal(r.provenance.timeoutMs, 'env:KF_TIMEOUT_MS');
  assert.equal(r.protocol, 'tools');
  assert.equal(r.apiKeyEnv, 'OPENAI_API_KEY');
  assert.equal(r.provenance.apiKeyEnv, 'builtin');
  // Another stage of the same experiment takes the project default model.
  const s = resolveStage('synth', { experiment, defaults }, env);
  assert.equal(s.model, 'proj-model');
  assert.equal(s.provenance.model, 'defaults.defaults');
});

test('a stage override inherits base URL, model, key env, extra body AND timeout; extra body merges per key', () => {
  const experiment = normalizeModelsConfig({
    defaults: {
      baseUrl: 'http://h:8000/v1/',
      model: 'big',
      apiKeyEnv: 'MY_KEY',
      extraBody: { chat_template_kwargs: { enable_thinking: false }, top_k: 20 },
      timeoutMs: 9000,
    },
    stages: { judge: { model: 'small', extraBody: { top_k: 5 } } },
  });
  const r = resolveStage('judge', { experiment }, noEnv);
  assert.equal(r.model, 'small');
  assert.equal(r.baseUrl, 'http://h:8000/v1');
  assert.equal(r.apiKeyEnv, 'MY_KEY');
  assert.equal(r.timeoutMs, 9000);
  assert.deepEqual(r.extraBody, { chat_template_kwargs: { enable_thinking: false }, top_k: 5 });
  assert.equal(r.provenance.extraBody, 'experiment.stages.judge + experiment.defaults');
  assert.equal(r.provenance.timeoutMs, 'experiment.defaults');
});

test('environment: per-stage variables, vision model for caption, embedding never inherits the chat model', () => {
  const env = { OPENAI_BASE_URL: 'http://e/v1', KF_MODEL: 'chat', KF_VISION_MODEL: 'vlm', KF_JUDGE_MODEL: 'j', KF_EXTRA_BODY: '{"x":1}' } as NodeJS.ProcessEnv;
  assert.equal(resolveStage('vision', {}, env).model, 'vlm');
  assert.equal(resolveStage('caption', {}, env).model, 'vlm');
  assert.equal(resolveStage('caption', {}, { ...env, KF_VISION_BASE_URL: 'http://vlm/v1' }).baseUrl, 'http://vlm/v1');
  assert.equal(resolveStage('judge', {}, env).model, 'j');
  assert.equal(resolveStage('judge', {}, env).provenance.model, 'env:KF_JUDGE_MODEL');
  assert.equal(resolveStage('locator', {}, env).model, 'chat');
  const emb = resolveStage('embedding', {}, env);
  assert.equal(emb.backend, 'offline', 'a chat model is never used for embeddings');
  const emb2 = resolveStage('embedding', {}, { ...env, KF_EMBED_MODEL: 'e5', KF_EMBED_BASE_URL: 'http://emb/v1' });
  assert.equal(emb2.backend, 'openai');
  assert.equal(emb2.model, 'e5');
  assert.equal(emb2.baseUrl, 'http://emb/v1');
  assert.deepEqual(emb2.extraBody, {}, 'chat extras are not sent to /embeddings');
  // An explicit embedding-stage block works too, inheriting the default base URL.
  const cfg = normalizeModelsConfig({ defaults: { baseUrl: 'http://h/v1', model: 'chat', backend: 'openai' }, stages: { embedding: { model: 'bge' } } });
  assert.equal(resolveStage('embedding', { experiment: cfg }, noEnv).model, 'bge');
  assert.equal(
    resolveStage('embedding', { experiment: normalizeModelsConfig({ defaults: { baseUrl: 'http://h/v1', model: 'chat', backend: 'openai' } }) }, noEnv).backend,
    'offline',
  );
});

test('explicit backend offline wins over an endpoint; openai without base URL uses the OpenAI API', () => {
  const env = { OPENAI_BASE_URL: 'http://e/v1', KF_MODEL: 'm' } as NodeJS.ProcessEnv;
  assert.equal(resolveStage('synth', { stage: { backend: 'offline' } }, env).backend, 'offline');
  const r = resolveStage('synth', { stage: { backend: 'openai', model: 'gpt-x' } }, noEnv);
  assert.equal(r.baseUrl, 'https://api.openai.com/v1');
});

test('bad configs fail with a KfError naming the field and what to do', () => {
  const bad = (fn: () => unknown, re: RegExp) => assert.throws(fn, (e: unknown) => isKfError(e) && re.test(e.message) && e.hint.length > 0);
  bad(() => normalizeModelsConfig({ defaults: { baseURl: 'x' } }), /unknown field "baseURl"/);
  bad(() => normalizeModelsConfig({ defaults: { apiKey: 'sk-123' } }), /never read from config/);
  bad(() => normalizeModelsConfig({ defaults: { apiKeyEnv: 'sk-abc-123' } }), /NAME of an environment variable/);
  bad(() => normalizeModelsConfig({ defaults: { timeoutMs: -1 } }), /timeoutMs must be a positive integer/);
  bad(() => normalizeModelsConfig({ stages: { judge: { protocol: 'xml' } } }), /stages\.judge\.protocol/);
  bad(() => normalizeModelsConfig({ cache: { mode: 'sometimes' } }), /cache\.mode/);
  bad(() => resolveStage('judge', {}, { OPENAI_BASE_URL: 'http://e/v1' } as NodeJS.ProcessEnv), /no model is named/);
  bad(() => resolveStage('judge', {}, { KF_EXTRA_BODY: '{nope' } as NodeJS.ProcessEnv), /KF_EXTRA_BODY/);
  bad(() => resolveStage('judge', {}, { KF_TIMEOUT_MS: 'soon' } as NodeJS.ProcessEnv), /KF_TIMEOUT_MS/);
  // snake_case spellings from TOML files are accepted.
  assert.equal(normalizeModelsConfig({ defaults: { base_url: 'http://x/v1', max_tokens: 10 } }).defaults!.baseUrl, 'http://x/v1');
});

test('config files: TOML with a [models] table, JSON on its own; errors name the file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-cfg-'));
  const toml = path.join(dir, 'm5.toml');
  fs.writeFileSync(
    toml,
    '[models.defaults]\nbase_url = "http://localhost:8000/v1"\nmodel = "Qwen/Qwen3-8B"\n\n[models.defaults.extra_body.chat_template_kwargs]\nenable_thinking = false\n\n[models.stages.judge]\nmodel = "small"\n',
  );
  const cfg = readModelsConfigFile(toml);
  assert.equal(cfg.stages!.judge.model, 'small');
  assert.deepEqual(cfg.defaults!.extraBody, { chat_template_kwargs: { enable_thinking: false } });
  const json = path.join(dir, 'models.json');
  fs.writeFileSync(json, JSON.stringify({ defaults: { model: 'm' } }));
  assert.equal(readModelsConfigFile(json).defaults!.model, 'm');
  fs.writeFileSync(json, '{ broken');
  assert.throws(
    () => readModelsConfigFile(json),
    (e: unknown) => isKfError(e) && e.message.includes(json),
  );
  fs.rmSync(dir, { recursive: true, force: true });
});
