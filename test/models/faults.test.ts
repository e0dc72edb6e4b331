/**
 * Faults over real HTTP: 429 + Retry-After (seconds and HTTP-date), 5xx,
 * timeouts (before headers and mid-body), connection resets, garbage bodies,
 * final failure after N attempts, non-retryable errors, cancellation, and the
 * per-endpoint concurrency limit.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ModelCallError } from '../../lib/models/call-error';
import { parseRetryAfter } from '../../lib/models/call-error';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { isKfError } from '../../lib/util/errors';
import { recordingSleep, routerFor } from './helpers';

let server: ScriptedServer;
before(async () => {
  server = await ScriptedServer.start();
});
after(async () => {
  await server.close();
});

const ask = (content: string, questionId?: string) => ({ stage: 'judge', questionId, messages: [{ role: 'user' as const, content }] });

test('Retry-After parsing: seconds, HTTP-date, retry-after-ms, garbage', () => {
  const h = (o: Record<string, string>) => new Headers(o);
  assert.equal(parseRetryAfter(h({ 'retry-after': '3' })), 3000);
  assert.equal(parseRetryAfter(h({ 'retry-after-ms': '250' })), 250);
  const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
  assert.equal(parseRetryAfter(h({ 'retry-after': 'Wed, 21 Oct 2015 07:28:05 GMT' }), now), 5000);
  assert.equal(parseRetryAfter(h({ 'retry-after': 'Wed, 21 Oct 2015 07:27:00 GMT' }), now), 0);
  assert.equal(parseRetryAfter(h({ 'retry-after': 'soon' })), undefined);
  assert.equal(parseRetryAfter(h({})), undefined);
});

test('429 with Retry-After (seconds) waits exactly that long, then succeeds', async () => {
  server.reset();
  server.enqueue({ status: 429, headers: { 'retry-after': '2' } }, { text: 'fine' });
  const s = recordingSleep();
  const router = routerFor(server, {}, { retry: { sleep: s.sleep } });
  const res = await router.forStage('judge').chat(ask('x'));
  assert.equal(res.text, 'fine');
  assert.equal(res.attempts, 2);
  assert.deepEqual(s.delays, [2000]);
  assert.equal(router.ledger.totals().attempts, 2);
  await router.close();
});

test('429 with Retry-After as an HTTP-date is honoured', async () => {
  server.reset();
  const when = new Date(Date.now() + 5000).toUTCString();
  server.enqueue({ status: 429, headers: { 'retry-after': when } }, { text: 'fine' });
  const s = recordingSleep();
  const router = routerFor(server, {}, { retry: { sleep: s.sleep } });
  await router.forStage('judge').chat(ask('x'));
  assert.equal(s.delays.length, 1);
  assert.ok(s.delays[0] > 2500 && s.delays[0] <= 5000, `delay ${s.delays[0]} follows the date`);
  await router.close();
});

test('5xx retries back off exponentially with seeded full jitter', async () => {
  server.reset();
  server.enqueue({ status: 500 }, { status: 503 }, { status: 502 }, { text: 'third time lucky' });
  const s = recordingSleep();
  const router = routerFor(server, {}, { retry: { sleep: s.sleep, seed: 'fixed' } });
  const res = await router.forStage('judge').chat(ask('x'));
  assert.equal(res.attempts, 4);
  assert.equal(s.delays.length, 3);
  // Full jitter: each wait is uniform in [0, base * 2^(n-1)] (the 503 pauses the endpoint through its breaker, streak 1).
  s.delays.forEach((d, i) => assert.ok(d >= 0 && d <= 500 * 2 ** i, `delay ${i}: ${d}`));
  assert.ok(new Set(s.delays).size > 1, 'the waits are drawn, not fixed');
  // Same seed, same jitter.
  server.enqueue({ status: 500 }, { status: 503 }, { status: 502 }, { text: 'again' });
  const s2 = recordingSleep();
  const router2 = routerFor(server, {}, { retry: { sleep: s2.sleep, seed: 'fixed' } });
  await router2.forStage('judge').chat(ask('x'));
  assert.deepEqual(s2.delays, s.delays);
  await router.close();
  await router2.close();
});

test('a timeout before the headers and a stall mid-body are both retried', async () => {
  server.reset();
  server.enqueue({ delayMs: 2000, text: 'too late' }, { bodyDelayMs: 2000, text: 'also too late' }, { text: 'on time' });
  const s = recordingSleep();
  const router = routerFor(server, { defaults: { timeoutMs: 250 } }, { retry: { sleep: s.sleep } });
  const res = await router.forStage('judge').chat(ask('x'));
  assert.equal(res.text, 'on time');
  assert.equal(res.attempts, 3);
  await router.close();
});

test('a connection reset and a garbage body are retried', async () => {
  server.reset();
  server.enqueue({ reset: true }, { rawBody: '<html>proxy error</html>' }, { text: 'ok now' });
  const s = recordingSleep();
  const router = routerFor(server, {}, { retry: { sleep: s.sleep } });
  const res = await router.forStage('judge').chat(ask('x'));
  assert.equal(res.text, 'ok now');
  assert.equal(res.attempts, 3);
  await router.close();
});

test('final failure after N attempts names stage, question, endpoint, model, attempts, last status and what to do', async () => {
  server.reset();
  server.on({ reply: { status: 503, error: 'overloaded' } });
  const s = recordingSleep();
  const router = routerFor(server, { stages: { judge: { model: 'judge-model', maxAttempts: 3 } } }, { retry: { sleep: s.sleep } });
  await assert.rejects(router.forStage('judge').chat(ask('x', 'q-42')), (e: unknown) => {
    assert.ok(e instanceof ModelCallError);
    assert.equal(e.code, 'model_call_failed');
    assert.equal(e.attempts, 3);
    assert.equal(e.lastStatus, 503);
    assert.match(
      e.message,
      /stage judge \(question q-42\): model judge-model at http:\/\/127\.0\.0\.1:\d+\/v1 failed after 3 attempts; last error: HTTP 503: overloaded/,
    );
    assert.match(e.hint, /server is failing/);
    return true;
  });
  assert.equal(server.chatRequests().length, 3);
  assert.equal(router.ledger.totals().errors, 1);
  assert.equal(router.ledger.totals().attempts, 3);
  await router.close();
});

test('4xx other than 408/409/429 is not retried; 401 points at the key variable by name', async () => {
  server.reset();
  server.enqueue({ status: 401, error: 'bad key' });
  const router = routerFor(server, { defaults: { apiKeyEnv: 'MY_VLLM_KEY' } }, { env: { MY_VLLM_KEY: 'k-123456' } });
  await assert.rejects(
    router.forStage('judge').chat(ask('x')),
    (e: unknown) => isKfError(e) && /not retryable/.test(e.message) && /\$MY_VLLM_KEY/.test(e.hint),
  );
  assert.equal(server.chatRequests().length, 1);
  server.enqueue({ status: 404, error: 'model not found' });
  await assert.rejects(router.forStage('judge').chat(ask('y')), (e: unknown) => isKfError(e) && /kf models --check/.test(e.hint));
  await router.close();
});

test('cancellation: during a slow request, during backoff, and while queued for a connection slot', async () => {
  server.reset();
  server.on({ match: (r) => r.body.messages[0].content === 'slow', reply: { delayMs: 3000, text: 'late' } });
  server.on({ match: (r) => r.body.messages[0].content === 'busy', reply: { status: 429, headers: { 'retry-after': '60' } } });
  const router = routerFor(server, { defaults: { concurrency: 1 } });
  const ctl = new AbortController();
  const slow = router.forStage('judge').chat(ask('slow', 'q1'), ctl.signal);
  const queued = router.forStage('judge').chat(ask('other', 'q2'), ctl.signal); // waits for the single slot
  setTimeout(() => ctl.abort(), 100);
  await assert.rejects(slow, (e: unknown) => isKfError(e) && e.code === 'aborted' && /question q1/.test(e.message));
  await assert.rejects(queued, (e: unknown) => isKfError(e) && e.code === 'aborted');
  const ctl2 = new AbortController();
  const backoff = router.forStage('judge').chat(ask('busy', 'q3'), ctl2.signal); // real sleep of 60 s, cut short
  setTimeout(() => ctl2.abort(), 150);
  await assert.rejects(backoff, (e: unknown) => isKfError(e) && e.code === 'aborted');
  const pre = new AbortController();
  pre.abort();
  await assert.rejects(router.forStage('judge').chat(ask('never'), pre.signal), (e: unknown) => isKfError(e) && e.code === 'aborted');
  assert.equal(server.chatRequests().filter((r) => r.body.messages[0].content === 'never').length, 0);
  await router.close();
});

test('the per-endpoint concurrency limit holds across stages sharing a base URL', async () => {
  server.reset();
  server.maxInFlight = 0;
  server.on({ reply: { delayMs: 60, text: 'x' } });
  const router = routerFor(server, { defaults: { concurrency: 3 }, stages: { synth: { concurrency: 2 } } });
  const calls = [];
  for (let i = 0; i < 8; i++) calls.push(router.forStage(i % 2 ? 'judge' : 'synth').chat(ask(`c${i}`)));
  await Promise.all(calls);
  assert.equal(server.chatRequests().length, 8);
  assert.equal(server.maxInFlight, 2, 'the smallest limit of the stages sharing the endpoint applies');
  await router.close();
});
