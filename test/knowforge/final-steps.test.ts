/**
 * Issue 34 at the final steps, with a scripted model (no HTTP; the HTTP path is test/run/refused-replies.test.ts):
 * a reply cut by the token limit is refused (model_output, reason length) and rejected (the cache never replays
 * it) at the synthesizer, the checker and the bridge judge; the MMLongBench-Doc extraction judge never reads a cut
 * reply and asks again; an empty synthesizer or checker reply is asked once more (D5).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractAnswerWithJudge } from '../../lib/eval/metrics/mmlongbench-judge';
import { synthesizeAndCheck } from '../../lib/answer/answer';
import { runBridgeJudge } from '../../lib/knowforge/judge';
import type { ModelOutputError } from '../../lib/model-api/model-output-error';
import type { ChatModel, ChatRequest, ChatResponse } from '../../lib/model-api/types';
import { questionContext } from '../../lib/pipeline/question-context';
import type { Question } from '../../lib/bench/types';

type Scripted = { text: string; finishReason?: string };

/** A model answering each stage from its own list (the last reply repeats); every reply records its verdict. */
function stagedModel(script: Record<string, Scripted[]>) {
  const asked: string[] = [];
  const rejected: { stage: string; reason: string }[] = [];
  const model: ChatModel = {
    id: 'scripted',
    backend: 'scripted',
    async chat(req: ChatRequest): Promise<ChatResponse> {
      const list = script[req.stage] ?? [{ text: 'ok' }];
      const n = asked.filter((s) => s === req.stage).length;
      asked.push(req.stage);
      const r = list[Math.min(n, list.length - 1)];
      return {
        text: r.text,
        toolCalls: [],
        usage: { promptTokens: 1, completionTokens: 1 },
        model: 'scripted',
        backend: 'scripted',
        finishReason: r.finishReason ?? 'stop',
        cacheHit: false,
        latencyMs: 1,
        attempts: 1,
        reject: (reason) => void rejected.push({ stage: req.stage, reason }),
      };
    },
  };
  return { model, asked, rejected };
}

const question = { id: 'q1', benchmark: 'demo', question: 'Is Kraenmox a river?', answer: 'No' } as Question;
const ctxOf = (model: ChatModel) => questionContext({ question, model: () => model, settings: {}, rngKey: 't' });

test('a synthesizer reply cut inside its FINAL ANSWER line is refused (reason length) and rejected, never checked or scored', async () => {
  const m = stagedModel({ synth: [{ text: 'The passage [1] says so.\nFINAL ANSWER: N', finishReason: 'length' }], checker: [{ text: '{"final": "No"}' }] });
  await assert.rejects(synthesizeAndCheck(ctxOf(m.model), { template: 'ours' }), (e: ModelOutputError) => {
    assert.equal(e.code, 'model_output');
    assert.equal(e.stage, 'synth');
    assert.equal(e.reason, 'length');
    return true;
  });
  assert.deepEqual(m.asked, ['synth'], 'the checker is never asked about a cut answer');
  assert.deepEqual(m.rejected, [{ stage: 'synth', reason: 'length' }]);
});

test('a checker reply cut by the token limit is refused (reason length); the accepted synthesizer reply is not rejected', async () => {
  const m = stagedModel({ synth: [{ text: 'It is not [1].\nFINAL ANSWER: No' }], checker: [{ text: '{"final": "N', finishReason: 'length' }] });
  await assert.rejects(synthesizeAndCheck(ctxOf(m.model), { template: 'ours' }), (e: ModelOutputError) => e.stage === 'checker' && e.reason === 'length');
  assert.deepEqual(m.rejected, [{ stage: 'checker', reason: 'length' }]);
});

test('an empty synthesizer or checker reply is asked once more (D5); two empty synthesizer replies fail as empty', async () => {
  const once = stagedModel({ synth: [{ text: '' }, { text: 'It is not [1].\nFINAL ANSWER: No' }], checker: [{ text: '' }, { text: '{"final": "No"}' }] });
  const a = await synthesizeAndCheck(ctxOf(once.model), { template: 'ours' });
  assert.equal(a.finalAnswer, 'No');
  assert.deepEqual(once.asked, ['synth', 'synth', 'checker', 'checker']);
  assert.equal(a.counters.emptyReasks, 2);
  assert.equal(a.counters.synthCalls, 2);
  const twice = stagedModel({ synth: [{ text: '' }] });
  await assert.rejects(synthesizeAndCheck(ctxOf(twice.model), { template: 'ours' }), (e: ModelOutputError) => e.stage === 'synth' && e.reason === 'empty');
  assert.deepEqual(twice.asked, ['synth', 'synth']);
});

test('a checker reply with no usable value is rejected (the synthesizer line stands, the reply is never replayed)', async () => {
  const m = stagedModel({ synth: [{ text: 'It is not [1].\nFINAL ANSWER: No' }], checker: [{ text: 'I agree with the answer.' }] });
  const a = await synthesizeAndCheck(ctxOf(m.model), { template: 'ours' });
  assert.equal(a.finalAnswer, 'No');
  assert.deepEqual(m.rejected, [{ stage: 'checker', reason: 'unparseable' }]);
});

test('a bridge judge reply cut by the token limit is refused (reason length); an unparseable one is rejected and runs nothing', async () => {
  const input = { question: question.question, queriesRun: ['Kraenmox'], poolText: '[1] Kraenmox is a town.', onNeedMoreFalse: 'paper' as const };
  const cut = stagedModel({ bridge: [{ text: '{"need_more": true, "queries": ["Kraenmox riv', finishReason: 'length' }] });
  await assert.rejects(runBridgeJudge(cut.model, input), (e: ModelOutputError) => e.stage === 'bridge' && e.reason === 'length');
  assert.deepEqual(cut.rejected, [{ stage: 'bridge', reason: 'length' }]);
  const garbled = stagedModel({ bridge: [{ text: 'no idea' }] });
  const v = await runBridgeJudge(garbled.model, input);
  assert.deepEqual(v.toRun, []);
  assert.match(v.parseError ?? '', /no judge JSON/);
  assert.deepEqual(garbled.rejected, [{ stage: 'bridge', reason: 'unparseable' }]);
});

test('the extraction judge never reads a cut reply: it is rejected and asked again', async () => {
  const m = stagedModel({ scorer: [{ text: 'Extracted answer: 18.2', finishReason: 'length' }, { text: 'Extracted answer: 18.29%\nAnswer format: Float' }] });
  const r = await extractAnswerWithJudge(m.model, 'What share?', 'FINAL ANSWER: 18.29%');
  assert.equal(r.failed, false);
  assert.equal(r.pred, '18.29%');
  assert.equal(r.attempts, 2);
  assert.deepEqual(m.rejected, [{ stage: 'scorer', reason: 'length' }]);
});
