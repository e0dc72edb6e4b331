/**
 * `kf serve kb --workers 2` over real HTTP on loopback (the CLI in a child process, a tiny index):
 * - the same answers as one process for the same requests (searches, overview, a refusal);
 * - both workers answer (the pid a request asks for with `x-kf-pid`), neither is the primary;
 * - a killed worker is reported with its signal and replaced, and the server keeps answering;
 * - a bad index fails the command fast with the worker's message, not a hang; so does losing every worker
 *   when none starts again;
 * - Ctrl-C (SIGINT to the primary) stops every worker.
 * Nothing here depends on how fast the machine is: waits are bounded by the test's timeout only.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { PID_HEADER } from '../../lib/serve-kb/server';
import { kfInProcess } from '../_shared/cli-in-process';
import { nonEmpty } from '../_shared/non-empty';
import { ownScratch, tinyDemoWorld } from '../_shared/scratch';
import { startServeKb, type ServedKb } from './serve-kb.helper';

const scratch = ownScratch('kf-serve-kb-workers-');
const indexDir = path.join(scratch, 'index');
let one: ServedKb;
let two: ServedKb;
let questions: string[] = [];

before(async () => {
  const world = await tinyDemoWorld();
  questions = (JSON.parse(fs.readFileSync(path.join(world.dir, 'questions.json'), 'utf8')) as { question: string }[]).slice(0, 4).map((q) => q.question);
  const built = await kfInProcess(['index', 'build', '--corpus', path.join(world.dir, 'corpus'), '--out', indexDir, '--offline', '--quiet']);
  assert.equal(built.code, 0, built.err);
  one = await startServeKb(['--index', indexDir, '--uuid', 'w']);
  two = await startServeKb(['--index', indexDir, '--uuid', 'w', '--workers', '2']);
});

after(async () => {
  await one?.stop();
  await two?.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** One request on its own connection (so that round-robin hands each to the next worker). */
function ask(baseUrl: string, endpoint: string, body?: unknown): Promise<{ status: number; pid: number; json: unknown }> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${baseUrl}/api/v2/kb/w/${endpoint}`,
      {
        method: data ? 'POST' : 'GET',
        agent: false,
        headers: { [PID_HEADER]: '1', connection: 'close', ...(data ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, pid: Number(res.headers[PID_HEADER]), json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const search = (baseUrl: string, query: string) => ask(baseUrl, 'search', { query, topk: 8, score_fields: true });

/** Requests until `want` distinct worker pids answered (round-robin: a few suffice). */
async function pidsAnswering(baseUrl: string, want: number): Promise<Set<number>> {
  const pids = new Set<number>();
  for (let i = 0; i < 40 && pids.size < want; i++) {
    const r = await ask(baseUrl, 'overview');
    assert.equal(r.status, 200);
    pids.add(r.pid);
  }
  return pids;
}

test('two workers answer exactly what one process answers', { timeout: 60_000 }, async () => {
  for (const q of nonEmpty(questions, 'questions')) {
    const [a, b] = [await search(one.baseUrl, q), await search(two.baseUrl, q)];
    assert.equal(a.status, 200);
    nonEmpty((a.json as { data: { results: unknown[] } }).data.results, 'results');
    assert.deepEqual(b.json, a.json, q);
  }
  assert.deepEqual((await ask(two.baseUrl, 'overview')).json, (await ask(one.baseUrl, 'overview')).json);
  const [ra, rb] = [await ask(one.baseUrl, 'search', {}), await ask(two.baseUrl, 'search', {})];
  assert.equal(rb.status, ra.status);
  assert.deepEqual(rb.json, ra.json, 'a refusal too');
});

test('both workers answer, neither is the primary; one answers with the primary pid', { timeout: 60_000 }, async () => {
  const pids = await pidsAnswering(two.baseUrl, 2);
  assert.equal(pids.size, 2, `pids answering: ${[...pids].join(', ')}`);
  assert.ok(!pids.has(two.pid), 'the primary hands connections on, it does not answer');
  assert.deepEqual([...(await pidsAnswering(one.baseUrl, 2))], [one.pid]);
});

test('a killed worker is reported and replaced; the server keeps answering', { timeout: 90_000 }, async () => {
  const before = await pidsAnswering(two.baseUrl, 2);
  const victim = [...before][0];
  process.kill(victim, 'SIGKILL');
  while (!/replaces it/.test(two.err())) await new Promise((r) => setTimeout(r, 50));
  assert.match(two.err(), new RegExp(`worker ${victim} exited with signal SIGKILL; starting another`));
  const after = await pidsAnswering(two.baseUrl, 2);
  assert.equal(after.size, 2);
  assert.ok(!after.has(victim), 'the dead worker answers nothing');
  const a = await search(one.baseUrl, questions[0]);
  for (let i = 0; i < 4; i++) assert.deepEqual((await search(two.baseUrl, questions[0])).json, a.json);
});

test('a bad index fails the command with the worker message', { timeout: 60_000 }, async () => {
  const missing = path.join(scratch, 'no-such-index');
  await assert.rejects(startServeKb(['--index', missing, '--workers', '2']), (e: Error) => {
    assert.match(e.message, /exited with 1 before listening/);
    assert.ok(e.message.includes(`no index folder ${missing}`), e.message);
    assert.match(e.message, /build it first/);
    return true;
  });
});

test('when every worker is gone and none starts again, the command fails with the reason', { timeout: 90_000 }, async () => {
  const copy = path.join(scratch, 'index-to-remove');
  fs.cpSync(indexDir, copy, { recursive: true });
  const served = await startServeKb(['--index', copy, '--uuid', 'w', '--workers', '2']);
  const pids = await pidsAnswering(served.baseUrl, 2);
  fs.rmSync(copy, { recursive: true, force: true });
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  while (!/every kf serve kb worker is gone/.test(served.err())) await new Promise((r) => setTimeout(r, 50));
  assert.notEqual(await served.stop(), 0);
  assert.ok(served.err().includes(`no index folder ${copy}`), served.err());
});

test('workers that keep dying are not restarted forever: the command fails with the reason', { timeout: 600_000 }, async () => {
  // The window of deaths widened to an hour: on a loaded machine six replacements can take more than a minute to start.
  process.env.KF_SERVE_KB_CRASH_WINDOW_S = '3600';
  const served = await startServeKb(['--index', indexDir, '--uuid', 'w', '--workers', '2']).finally(() => delete process.env.KF_SERVE_KB_CRASH_WINDOW_S);
  const killed = new Set<number>();
  // Kill whichever worker answers, replacements included, until the primary gives up (more than 5 deaths a minute).
  while (!/keep dying/.test(served.err())) {
    const r = await ask(served.baseUrl, 'overview').catch(() => undefined);
    if (r && !killed.has(r.pid)) {
      killed.add(r.pid);
      process.kill(r.pid, 'SIGKILL');
    }
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.ok(killed.size > 5, `killed ${killed.size} workers`);
  assert.match(served.err(), /workers died within a minute: not starting another/);
  assert.notEqual(await served.stop(), 0);
});

test('SIGINT to the primary stops every worker', { timeout: 60_000 }, async () => {
  const served = await startServeKb(['--index', indexDir, '--uuid', 'w', '--workers', '2']);
  const pids = await pidsAnswering(served.baseUrl, 2);
  assert.equal(pids.size, 2);
  assert.equal(await served.stop(), 0);
  for (const pid of pids) assert.throws(() => process.kill(pid, 0), /ESRCH/, `worker ${pid} is gone`);
});
