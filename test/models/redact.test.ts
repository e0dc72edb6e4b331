/** The redaction rules (lib/model-api/redact.ts): registered values, credential shapes, deep copies and errors. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REDACTED, redactDeep, redactError, redactSecrets, redactUrl, registerSecret, registerUrlSecrets, secretsOfUrl } from '../../lib/model-api/redact';
import { KfError } from '../../lib/util/errors';

test('URL secrets: user, password and every query value (raw and percent-decoded), whatever the name; printed as ?name=***', () => {
  const url = 'https://alice:p%40ss-word-1@llm.example/v1?api-version=2024-06&token=tok%2Fen-12345&sig=abcdef123456';
  assert.deepEqual(secretsOfUrl(url).sort(), ['2024-06', 'abcdef123456', 'alice', 'p%40ss-word-1', 'p@ss-word-1', 'tok%2Fen-12345', 'tok/en-12345'].sort());
  assert.deepEqual(secretsOfUrl('not a url'), []);
  assert.equal(redactUrl(url), `https://${REDACTED}@llm.example/v1?api-version=***&token=***&sig=***`);
});

test('registered secrets are replaced wherever they appear; short ones wherever they stand as a token of their own', () => {
  const key = `sk-unit-${Math.random().toString(36).slice(2)}`;
  registerSecret(key);
  registerSecret('abc'); // short: hidden where it stands alone, never inside a longer word
  registerUrlSecrets('http://bob:hunter2-long-pass@h.example/v1');
  assert.equal(redactSecrets(`the model said: my key is ${key}!`), `the model said: my key is ${REDACTED}!`);
  assert.equal(redactSecrets('abc and abcdef stay; "abc" echoed'), `${REDACTED} and abcdef stay; "${REDACTED}" echoed`);
  assert.equal(redactSecrets('password hunter2-long-pass leaked'), `password ${REDACTED} leaked`);
  // Shapes catch what nobody registered.
  assert.equal(redactSecrets('GET http://u:p@10.0.0.1/v1 failed'), `GET http://${REDACTED}@10.0.0.1/v1 failed`);
  assert.equal(redactSecrets('Authorization: Bearer zzzzzzzzzz123'), `Authorization: Bearer ${REDACTED}`);
  assert.equal(redactSecrets('see /v1/x?access_token=qqq&page=2'), `see /v1/x?access_token=***&page=2`);
});

test('placeholder keys of local servers (EMPTY, none, ollama) are not secrets: answer words stay', () => {
  for (const k of ['EMPTY', 'none', 'ollama']) registerSecret(k);
  assert.equal(redactSecrets('FINAL ANSWER: none (EMPTY; ollama)'), 'FINAL ANSWER: none (EMPTY; ollama)');
});

test('credential-like query names nobody registered are masked too (the names a fixed list missed)', () => {
  const names = ['subscription-key', 'x-api-key', 'client_secret', 'access_key', 'auth_token', 'private_token', 'pass', 'secret_key', 'id_token'];
  for (const n of [...names, 'refresh_token', 'ocp-apim-subscription-key', 'X-Amz-Signature', 'apikey', 'password'])
    assert.equal(redactSecrets(`GET https://h.example/v1?${n}=unregistered9&page=2`), `GET https://h.example/v1?${n}=***&page=2`, n);
  assert.equal(redactSecrets('https://h.example/a?author=me&page=2'), 'https://h.example/a?author=me&page=2', 'ordinary names are kept');
});

test('redactDeep copies JSON-like values with every string (keys too) redacted; redactError keeps the class and code', () => {
  const key = `sk-deep-${Math.random().toString(36).slice(2)}`;
  registerSecret(key);
  const value = { a: [key, 1, null, { [key]: `x ${key}` }], b: true };
  assert.deepEqual(redactDeep(value), { a: [REDACTED, 1, null, { [REDACTED]: `x ${REDACTED}` }], b: true });
  assert.equal(value.a[0], key, 'the input is not changed');
  const table = Object.assign(Object.create(null) as Record<string, unknown>, { baseUrl: 'http://u:pw@h/v1' }); // a TOML table
  assert.deepEqual(redactDeep({ t: table }), { t: { baseUrl: `http://${REDACTED}@h/v1` } });
  const e = redactError(new KfError('model_call_failed', `failed at http://u:pw@h/v1 with ${key}`, `check ${key}`));
  assert.ok(e instanceof KfError);
  assert.equal(e.code, 'model_call_failed');
  assert.equal(e.message, `failed at http://${REDACTED}@h/v1 with ${REDACTED}`);
  assert.equal(e.hint, `check ${REDACTED}`);
  assert.ok(!e.stack?.includes(key));
});
