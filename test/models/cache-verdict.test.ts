/**
 * Issue 34, D1 at the model layer: the cache keeps the asking stage's verdict. A reply the stage rejected is
 * never served again (hit or fresh reply alike), a fresh reply replaces it, caches written before the verdict
 * column existed are upgraded in place; the cache mode of KF_CACHE and of the caller override the file's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { ModelCache } from '../../lib/models/cache';
import { chooseCache } from '../../lib/models/cache-choice';
import { createModelRouter } from '../../lib/models/router';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { rejectReply } from '../../lib/model-api/reply-verdict';
import { tempDir } from './helpers';

const reply = (text: string) => ({ text, toolCalls: [], usage: { promptTokens: 1, completionTokens: 1 }, model: 'm', finishReason: 'stop' });

test('a rejected reply is kept with its verdict, never served, and replaced by the next fresh reply', () => {
  const dir = tempDir();
  const cache = ModelCache.open(path.join(dir, 'c.sqlite'));
  try {
    cache.put('k', reply('cut FINAL ANSWER: N'), { stage: 'synth' });
    assert.equal(cache.get('k')?.text, 'cut FINAL ANSWER: N');
    cache.reject('k', 'length');
    assert.equal(cache.get('k'), undefined, 'a rejected reply is a miss');
    assert.equal(cache.stats().rejected, 1);
    assert.equal(cache.stats().replies, 1, 'kept for the record');
    cache.put('k', reply('FINAL ANSWER: No'), { stage: 'synth' });
    assert.equal(cache.get('k')?.text, 'FINAL ANSWER: No');
    assert.equal(cache.stats().rejected, 0);
  } finally {
    cache.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a cache written before the verdict column existed opens, keeps its replies and takes verdicts', () => {
  const dir = tempDir();
  const file = path.join(dir, 'old.sqlite');
  const db = new Database(file);
  db.exec(
    'CREATE TABLE replies (key TEXT PRIMARY KEY, stage TEXT NOT NULL, model TEXT NOT NULL, question_id TEXT, created_at TEXT NOT NULL, reply TEXT NOT NULL)',
  );
  db.prepare('INSERT INTO replies VALUES (?, ?, ?, ?, ?, ?)').run('old', 'synth', 'm', null, '2025-01-01', JSON.stringify(reply('garbage')));
  db.close();
  const cache = ModelCache.open(file);
  try {
    assert.equal(cache.get('old')?.text, 'garbage');
    cache.reject('old', 'unparseable');
    assert.equal(cache.get('old'), undefined);
  } finally {
    cache.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('over HTTP: a reply rejected by its stage (fresh or from the cache) is asked again on the next call', async () => {
  const dir = tempDir();
  const server = await ScriptedServer.start();
  server.on({ reply: [{ text: 'FINAL ANSWER: Kr', finishReason: 'length' }, { text: 'FINAL ANSWER: Kraenmox' }] });
  const router = createModelRouter({ defaults: { baseUrl: server.url, model: 'm' } }, { cacheFile: path.join(dir, 'c.sqlite'), cacheMode: 'read-write' });
  const ask = () => router.forStage('synth').chat({ stage: 'synth', messages: [{ role: 'user', content: 'q' }] });
  try {
    const cut = await ask();
    assert.equal(cut.finishReason, 'length');
    assert.equal(typeof cut.reject, 'function', 'a stored reply carries the verdict hook');
    const hit = await ask();
    assert.equal(hit.cacheHit, true, 'not rejected yet: served from the cache');
    rejectReply(hit, 'length');
    const fresh = await ask();
    assert.equal(fresh.cacheHit, false);
    assert.equal(fresh.text, 'FINAL ANSWER: Kraenmox');
    assert.equal(server.chatRequests().length, 2, 'the rejected reply was asked again, once');
    assert.equal((await ask()).cacheHit, true, 'the accepted reply is replayed');
  } finally {
    await router.close();
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('cache mode precedence: the caller (kf run --cache), then KF_CACHE, then the experiment file, then the defaults', () => {
  const dir = tempDir();
  const file = path.join(dir, 'c.sqlite');
  const experiment = { cache: { mode: 'read-write' as const, file } };
  try {
    assert.equal(chooseCache({ experiment }, {}, { KF_CACHE: 'off' }).mode, 'off', 'KF_CACHE=off overrides the file');
    assert.equal(chooseCache({ experiment }, {}, {}).mode, 'read-write');
    const c = chooseCache({ experiment }, { cacheMode: 'read-write' }, { KF_CACHE: 'off' });
    assert.equal(c.mode, 'read-write', 'the caller overrides KF_CACHE');
    c.cache?.close();
    assert.equal(chooseCache({ experiment }, { cacheMode: 'off' }, {}).mode, 'off', '--cache off overrides the file');
    assert.equal(chooseCache({ experiment: {}, defaults: { cache: { mode: 'off' } } }, {}, { KF_CACHE: 'off' }).mode, 'off');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
