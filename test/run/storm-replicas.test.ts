/**
 * Retry policy and replicas in whole runs (issue 19 item 5), over real HTTP on
 * 127.0.0.1 against the scripted server playing a competent model:
 * - a 100-question M5 run against a server that refuses half of all requests
 *   with 429 ends with 0 errors: a refusal spends no attempt, the endpoint's
 *   circuit breaker pauses the workers, and the default maxRefusals holds;
 * - a stage served by two replicas, one of which dies mid-run: the run
 *   completes with 0 errors, the dead one is taken out of the rotation, and the
 *   ledger in the manifest counts the attempts per endpoint.
 * Backoffs are shortened (backoffBaseMs/backoffMaxMs) so the test stays fast;
 * attempts and refusals keep their defaults.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { ScriptedServer, type RecordedRequest, type ScriptedReply } from '../../lib/models/testing/scripted-server';
import { runExperiment } from '../../lib/run/runner';
import { loadRun } from '../../lib/run/results';
import { makeRng } from '../../lib/util/rng';
import { ownScratch } from '../_shared/scratch';
import { DEMO_QUESTIONS as N, demoExperiment, demoWorld100, goodReply, questionFinder } from './demo-model.helper';

function experiment(pipeline: string, baseUrl: string | string[], worldDir: string, backoff = { backoffBaseMs: 2, backoffMaxMs: 20 }) {
  return demoExperiment({ name: `storm-${pipeline}`, pipeline, worldDir, endpoint: { baseUrl, timeoutMs: 30_000, ...backoff } });
}

test('a 100-question M5 run against a server refusing half of all requests with 429 ends with 0 errors', { timeout: 10 * 60_000 }, async (t) => {
  const { world, questions } = await demoWorld100();
  const find = questionFinder(questions);
  const server = await ScriptedServer.start();
  const tmp = ownScratch('kf-storm-');
  const coin = makeRng('storm');
  try {
    server.on({
      reply: (req: RecordedRequest): ScriptedReply => {
        if (coin.next() < 0.5) return { status: 429, error: 'slow down' };
        const hit = find(req);
        return hit ? goodReply(req, hit.q) : { status: 400, error: 'unknown question' };
      },
    });
    const out = await runExperiment({ experiment: await experiment('M5', server.url, world.dir), resultsDir: tmp, runId: 'storm', log: () => undefined });
    assert.equal(out.status, 'completed');
    assert.equal(out.counts.recorded, N);
    assert.equal(out.counts.errors, 0, 'no question failed');
    const refused = server.chatRequests().filter((r) => r.response?.status === 429).length;
    const all = server.chatRequests().length;
    assert.ok(refused / all > 0.4 && refused / all < 0.6, `about half the requests were refused (${refused} of ${all})`);
    const ledger = loadRun(out.dir).manifest!.ledger!;
    const ep = ledger.byEndpoint![server.url]!;
    // Every refusal is counted at the endpoint: as refused, or as failed when the client gave up (timeout) before reading it.
    assert.ok(
      ep.refused <= refused && ep.refused + ep.failed >= refused,
      `the ledger counts the refusals at the endpoint: ${JSON.stringify(ep)} vs ${refused}`,
    );
    // Every request the server saw is an attempt; under load an attempt can also time out before the server reads it,
    // and such an attempt must be counted as failed (never as answered).
    assert.ok(ep.attempts >= all && ep.attempts - all <= ep.failed, `attempts ${ep.attempts} vs ${all} requests seen: ${JSON.stringify(ep)}`);
    assert.ok(ledger.totals.attempts >= all - refused, 'refusals are retried without being counted as failed calls');
    t.diagnostic(`M5 storm: ${all} chat requests, ${refused} refused with 429, ${out.counts.errors} errors; endpoint ledger ${JSON.stringify(ep)}`);
  } finally {
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('two replicas, one dies mid-run: the run completes with 0 errors and the ledger counts per endpoint', { timeout: 10 * 60_000 }, async (t) => {
  const { world, questions } = await demoWorld100();
  const find = questionFinder(questions);
  const a = await ScriptedServer.start();
  const b = await ScriptedServer.start();
  const [urlA, urlB] = [a.url, b.url]; // b's address is gone once it closes
  const tmp = ownScratch('kf-replicas-');
  let bClosed: Promise<void> | undefined;
  try {
    const answer = (req: RecordedRequest): ScriptedReply => {
      const hit = find(req);
      return hit ? { ...goodReply(req, hit.q), delayMs: 5 } : { status: 400, error: 'unknown question' };
    };
    a.on({ reply: answer });
    b.on({
      reply: (req) => {
        // After its 40th request the replica goes down: this request is cut, later connections are refused.
        if (b.chatRequests().length === 40) {
          bClosed = b.close();
          return { reset: true };
        }
        return answer(req);
      },
    });
    // A replica out of the rotation comes back after its backoff (20 ms doubling per failure, at most 1 s).
    const exp = await experiment('S4', [urlA, urlB], world.dir, { backoffBaseMs: 20, backoffMaxMs: 1000 });
    const out = await runExperiment({ experiment: exp, resultsDir: tmp, runId: 'replicas', log: () => undefined });
    assert.equal(out.status, 'completed');
    assert.equal(out.counts.recorded, N);
    assert.equal(out.counts.errors, 0, 'the dead replica cost no question');
    const byEndpoint = loadRun(out.dir).manifest!.ledger!.byEndpoint!;
    assert.deepEqual(Object.keys(byEndpoint).sort(), [urlA, urlB].sort());
    const [ea, eb] = [byEndpoint[urlA]!, byEndpoint[urlB]!];
    // (the requests in flight at its death are cut too)
    assert.ok(eb.answered > 0 && eb.answered <= 39, `the dying replica answered until it died (${eb.answered})`);
    assert.ok(eb.failed >= 1, 'its failures are counted against it');
    assert.equal(ea.answered + eb.answered, 2 * N, 'one synthesizer and one checker call per question, all answered');
    assert.ok(ea.answered > eb.answered, 'the live replica took over');
    // Taken out of the rotation: only probes reach the dead one after each backoff. Without it, the dead replica (never
    // busy) would be the least-loaded pick for nearly every attempt: as many failures as calls made after it died.
    t.diagnostic(`replicas: live ${JSON.stringify(ea)}; dying ${JSON.stringify(eb)}`);
    assert.ok(eb.failed < ea.answered / 4, `the dead replica was not hammered (${eb.failed} failed attempts; the live one answered ${ea.answered})`);
  } finally {
    await a.close();
    await (bClosed ?? b.close());
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
