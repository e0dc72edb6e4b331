/**
 * `loop = "runner"` from `kf run` (lib/knowforge/runner-mode/from-run.ts): the row picks the runner's mode,
 * the loop refuses another prompt pack and a local index with what to do, and its departures from the
 * released runner are a non-empty list (recorded with every question, so in the manifest).
 * The loop itself is compared with the released runner in runner-diff.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runnerModeOf, runRunnerLoop, RUNNER_MODE_DEPARTURES } from '../../lib/knowforge/runner-mode/from-run';
import { agentSettings } from '../../lib/knowforge/agent-settings';
import type { PipelineContext } from '../../lib/pipeline/types';
import { KfError } from '../../lib/util/errors';

const row = (o: Record<string, unknown>) => agentSettings.parse(o);

test('the row picks the mode: P0, S4 (no Locator rounds), P1 (no reader), else M5; the loop defaults to own', () => {
  assert.equal(row({}).loop, 'own');
  assert.equal(runnerModeOf(row({ loop: 'runner' })), 'M5');
  assert.equal(runnerModeOf(row({ p0: true })), 'P0');
  assert.equal(runnerModeOf(row({ locatorRounds: 0 })), 'S4');
  assert.equal(runnerModeOf(row({ reader: false })), 'P1');
  assert.ok(RUNNER_MODE_DEPARTURES.length >= 3);
});

test('loop = "runner" refuses the own pack and a local index, saying what to do', async () => {
  const ctx = { question: { id: 'q1', benchmark: 'mmlongbench-doc', question: 'How many?' }, kb: {} } as unknown as PipelineContext;
  await assert.rejects(
    runRunnerLoop(ctx, row({ loop: 'runner' }), 'M5'),
    (e: unknown) => e instanceof KfError && e.code === 'runner_loop_pack' && /--prompts knowforge-bench/.test(e.hint),
  );
  await assert.rejects(
    runRunnerLoop(ctx, { ...row({ loop: 'runner' }), prompts: 'knowforge-bench' }, 'M5'),
    (e: unknown) => e instanceof KfError && e.code === 'runner_loop_kb' && /kf serve kb/.test(e.hint),
  );
});
