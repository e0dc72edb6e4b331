/**
 * The paper's generator on the offline backend: the complexity self-check and the candidate choice are rule
 * stand-ins (lib/dualg/offline/generator-rules.ts) that answer the same requests and are labelled offline in
 * the trace; the unified call is answered by the offline synthesizer. Not model results.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createModelRouter } from '../../lib/models/router';
import { registerOfflineHandlers } from '../../lib/pipeline/offline-backend';
import { dualgPipeline, dualgSettings } from '../../lib/dualg/pipeline';
import { chooseReply, complexityVerdict } from '../../lib/dualg/offline/generator-rules';
import type { KbSearchOptions, KnowledgeBase } from '../../lib/pipeline/knowledge-base';
import type { RankedEvidence } from '../../lib/pipeline/ranked-evidence';
import type { PipelineContext, TraceEvent } from '../../lib/pipeline/types';
import { makeRng } from '../../lib/util/rng';
import { toyFragmentsWithChartFile, toyKb } from '../knowforge/toy-kb';

registerOfflineHandlers();

test('offline stand-ins: COMPLEX with two named entities, SIMPLE with one; the choice keeps the answer with retrieval when it names an option', () => {
  assert.equal(complexityVerdict({ role: 'dualg-complexity', question: 'Was Bob Stone born in Paris?' }), 'COMPLEX');
  assert.equal(complexityVerdict({ role: 'dualg-complexity', question: 'What colour is the sky in the photo?' }), 'SIMPLE');
  assert.equal(
    chooseReply({ role: 'dualg-choose', question: 'q', options: ['Rome', 'Paris'], candidates: ['(B) Paris', '(A) Rome'] }),
    'KEEP: 1\nFINAL ANSWER: (B) Paris',
  );
  assert.equal(
    chooseReply({ role: 'dualg-choose', question: 'q', options: ['Rome', 'Paris'], candidates: ['Lyon', '(A) Rome'] }),
    'KEEP: 2\nFINAL ANSWER: (A) Rome',
  );
});

test('offline run with the complexity check and the two candidates: every call answered, the stand-ins labelled', async () => {
  const router = createModelRouter({ cache: { mode: 'off' } }, { env: {} });
  const base = toyKb(toyFragmentsWithChartFile());
  const kb = {
    ...base,
    async search(q: string, opts: KbSearchOptions = {}): Promise<RankedEvidence> {
      return { ...(await base.search('Alpha Quest directed Bob Stone born Paris', { ...opts, k: 3 })), retriever: String(opts.mode) };
    },
  } as KnowledgeBase;
  const events: TraceEvent[] = [];
  try {
    const ctx: PipelineContext = {
      question: {
        id: 's1',
        benchmark: 'scienceqa',
        question: 'Where was Bob Stone born?',
        answer: 'Paris',
        meta: { choices: ['Rome', 'Paris'], answerIndex: 1 },
      } as never,
      model: (stage) => router.forStage(stage),
      kb,
      convention: 'generic',
      settings: {},
      rng: makeRng('t'),
      signal: new AbortController().signal,
      trace: (e) => events.push(e),
    };
    const s = dualgSettings.parse({ retriever: 'dualg-gnn', answerForm: 'choice', candidates: true, complexityCheck: true });
    const r = await dualgPipeline('DG', '', s).run(ctx);
    assert.ok(r.finalAnswer.trim(), 'an answer');
    const choice = events.find((e) => e.kind === 'candidate-choice') as { by?: string };
    assert.equal(choice.by, 'offline rules (stand-in)');
    assert.equal(events.filter((e) => e.kind === 'synth').length, 2, 'with and without retrieval');
    assert.equal(r.counters!.candidateCalls, 1);
  } finally {
    await router.close();
  }
});
