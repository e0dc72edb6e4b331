/**
 * The paper's generator over REAL HTTP (scripted server, one model per stage): one unified prompt (system +
 * one user message with the question, the path section with snippets, the passages, the image note and the
 * answer form, then the image parts); WebQA's complexity self-check bypasses the paths for a simple question
 * and scores the sentence itself; ScienceQA's options, its two candidates (with and without retrieval) and
 * the model's choice; no KnowForge guardrail or checker unless the experiment asks; a pattern reply without a
 * pattern twice is parsed by the rules, recorded as a departure, never a failed question.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { dualgPipeline, dualgSettings } from '../../lib/dualg/pipeline';
import { WEBQA } from '../../lib/bench/benchmarks/webqa';
import { keptOf } from '../../lib/dualg/candidates';
import { verdictOf } from '../../lib/dualg/complexity';
import type { KbSearchOptions, KnowledgeBase } from '../../lib/pipeline/knowledge-base';
import type { RankedEvidence } from '../../lib/pipeline/ranked-evidence';
import { withPaths, type EvidencePath } from '../../lib/dualg/paths/evidence-path';
import { ScriptedServer, type RecordedRequest, type ScriptRule } from '../../lib/models/testing/scripted-server';
import type { PipelineContext, TraceEvent } from '../../lib/pipeline/types';
import { makeRng } from '../../lib/util/rng';
import { loadPrompt } from '../../lib/util/prompts';
import { clearImageProbes } from '../../lib/dualg/image-probe';
import { routerFor } from '../models/helpers';
import { toyFragmentsWithChartFile, toyIndexWithChart, toyKb } from '../knowforge/toy-kb';
import { ownScratch } from '../_shared/scratch';

const STAGES = { pattern: { model: 'pat' }, synth: { model: 'vlm' }, checker: { model: 'chk' } };
const PATHS: EvidencePath[] = [
  {
    score: 0.9,
    docs: ['alpha', 'bob'],
    steps: [
      { from: 'Alpha Quest', relation: 'directed by', to: 'Bob Stone', source: { docId: 'alpha', fragmentId: 'alpha#0' } },
      { from: 'Bob Stone', relation: 'born in', to: 'Paris', source: { docId: 'bob', fragmentId: 'bob#0' } },
    ],
  },
];
const PATTERN = JSON.stringify({
  conditions: [
    ['Alpha Quest', 'directed by', '?d'],
    ['?d', 'born in', '?x'],
  ],
  target: '?x (place)',
  visual_budget: 1,
});

function graphKb(id: string): KnowledgeBase {
  const base = toyKb(toyFragmentsWithChartFile());
  return {
    ...base,
    id,
    async search(_query: string, opts: KbSearchOptions = {}): Promise<RankedEvidence> {
      const r = await base.search('Alpha Quest directed Bob Stone born Paris', { ...opts, k: 3 });
      return { ...r, retriever: String(opts.mode), extra: withPaths(PATHS), system: { label: 'scorer gnn (checkpoint abc)', scorer: 'gnn', removed: [] } };
    },
  } as KnowledgeBase;
}

type Question = PipelineContext['question'];
const QUESTION = { id: 'q1', benchmark: 'demo', question: 'Where was the director of Alpha Quest born?', answer: 'Paris', meta: {} } as unknown as Question;

const PROBE = loadPrompt('dualg-image-probe');
const isProbe = (r: RecordedRequest) => JSON.stringify(r.body.messages).includes(PROBE);

async function run(settings: Record<string, unknown>, rules: ScriptRule[], question: Question = QUESTION) {
  clearImageProbes();
  const server = await ScriptedServer.start();
  for (const r of rules) server.on(r);
  const router = routerFor(server, { stages: STAGES });
  const root = ownScratch('kf-dualg-papergen-');
  const events: TraceEvent[] = [];
  try {
    const ctx: PipelineContext = {
      question,
      model: (stage) => router.forStage(stage),
      kb: graphKb(toyIndexWithChart(root).id),
      convention: 'generic',
      settings: {},
      rng: makeRng('t'),
      signal: new AbortController().signal,
      trace: (e) => events.push(e),
    };
    const result = await dualgPipeline('DG', '', dualgSettings.parse({ retriever: 'dualg-gnn', ...settings })).run(ctx);
    const chat = (model: string): RecordedRequest[] => server.requests.filter((r) => r.kind === 'chat' && r.model === model && !isProbe(r));
    const probes = server.requests.filter(isProbe);
    return { result, events, synth: chat('vlm'), pattern: chat('pat'), checker: chat('chk'), probes };
  } finally {
    await router.close();
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const userText = (r: RecordedRequest): string => {
  const c = r.body.messages[r.body.messages.length - 1].content as string | { type: string; text?: string }[];
  return typeof c === 'string'
    ? c
    : c
        .filter((p) => p.type === 'text')
        .map((p) => p.text)
        .join('\n');
};
const imageParts = (r: RecordedRequest): number => {
  const c = r.body.messages[r.body.messages.length - 1].content;
  return Array.isArray(c) ? c.filter((p: { type: string }) => p.type === 'image_url').length : 0;
};
const has = (needle: string) => (req: RecordedRequest) => JSON.stringify(req.body.messages).includes(needle);

test('unified prompt: system message, then question, path snippets, passages, image note and answer form in one user message with the image part', async () => {
  const { result, synth, checker } = await run({}, [
    { model: 'pat', reply: { text: PATTERN } },
    { model: 'vlm', reply: { text: 'Bob Stone directed it and was born in Paris.\nFINAL ANSWER: Paris' } },
  ]);
  assert.equal(synth.length, 1, 'one generation call');
  assert.equal(checker.length, 0, 'no KnowForge checker unless asked');
  const msgs = synth[0].body.messages as { role: string; content: unknown }[];
  assert.equal(msgs[0].role, 'system');
  assert.equal(msgs[0].content, loadPrompt('dualg-generate-system'));
  const text = userText(synth[0]);
  const order = [
    'Question: Where was the director',
    'Reasoning paths',
    'Alpha Quest -directed by-> Bob Stone [alpha]: "',
    'Evidence passages:',
    'image(s) from the evidence',
    'FINAL ANSWER: <answer>',
  ];
  const at = order.map((s) => text.indexOf(s));
  assert.ok(
    at.every((i) => i >= 0),
    `every section present: ${JSON.stringify(at)}`,
  );
  assert.deepEqual(
    [...at].sort((a, b) => a - b),
    at,
    'in the unified order',
  );
  assert.equal(imageParts(synth[0]), 1, 'k_v = 1: one image part');
  assert.doesNotMatch(
    text,
    new RegExp(
      loadPrompt('guardrail-generic')
        .slice(0, 40)
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    ),
    'no guardrail unless asked',
  );
  assert.equal(result.finalAnswer, 'Paris');
  assert.match(result.system!.label, /unified prompt.*\(paper\)/);
});

test('guardrail and checker only when the experiment asks, and counted', async () => {
  const { result, checker, synth } = await run({ guardrail: true, checker: true }, [
    { model: 'pat', reply: { text: PATTERN } },
    { model: 'vlm', reply: { text: 'It was Paris, France.\nFINAL ANSWER: Paris, France' } },
    { model: 'chk', reply: { text: '{"final": "Paris"}' } },
  ]);
  assert.ok(userText(synth[0]).includes(loadPrompt('guardrail-generic')), 'the guardrail is appended');
  assert.equal(checker.length, 1);
  assert.equal(result.finalAnswer, 'Paris');
  assert.equal(result.counters!.checkerCalls, 1);
});

test('WebQA: a SIMPLE verdict bypasses the path section, a COMPLEX one keeps it; the sentence is what ROUGE-L scores', async () => {
  const sentence = 'The director of Alpha Quest, Bob Stone, was born in Paris.';
  const rules = (verdict: string): ScriptRule[] => [
    { model: 'pat', reply: { text: PATTERN } },
    { model: 'vlm', match: has('SIMPLE or COMPLEX'), reply: { text: verdict } },
    { model: 'vlm', reply: { text: `Reasoning done.\nFINAL ANSWER: ${sentence}` } },
  ];
  const simple = await run({ answerForm: 'sentence', complexityCheck: true }, rules('SIMPLE'));
  assert.equal(simple.synth.length, 2, 'the self-check, then the answer');
  assert.doesNotMatch(userText(simple.synth[1]), /Reasoning paths|-directed by->/, 'simple: no path section');
  assert.match(userText(simple.synth[1]), /one complete, fluent sentence/);
  assert.equal(simple.result.finalAnswer, sentence, 'the whole sentence is the answer, no checker shortens it');
  assert.equal(simple.result.counters!.pathsBypassed, 1);
  assert.equal((simple.events.find((e) => e.kind === 'complexity') as { verdict?: string }).verdict, 'simple');
  const q = { ...QUESTION, answer: 'Bob Stone was born in Paris.' } as Question;
  assert.ok(WEBQA.score(q, simple.result.finalAnswer, 0, {}).rougeL > 0.5, 'ROUGE-L on the sentence');
  const complex = await run({ answerForm: 'sentence', complexityCheck: true }, rules('COMPLEX'));
  assert.match(userText(complex.synth[1]), /Alpha Quest -directed by-> Bob Stone/, 'complex: the paths stay');
  assert.equal(complex.result.counters!.pathsBypassed, 0);
  assert.equal(verdictOf('It is SIMPLE.'), 'simple');
  assert.equal(verdictOf('simple or complex?'), 'unclear', 'both words: unclear, the paths stay');
});

const SCIENCE = {
  id: 's1',
  benchmark: 'scienceqa',
  question: 'Which city was Bob Stone born in?',
  answer: 'Paris',
  meta: { choices: ['Rome', 'Paris'], answerIndex: 1, hint: 'Bob Stone is a film director.' },
} as unknown as Question;

test('ScienceQA: options and hint in the prompt, one answer with and one without retrieval, the model keeps the second', async () => {
  const { result, synth, events } = await run(
    { answerForm: 'choice', candidates: true },
    [
      { model: 'pat', reply: { text: PATTERN } },
      {
        model: 'vlm',
        match: has('Candidate 1 (with retrieved evidence)'),
        reply: { text: 'The second reasons from the subject.\nKEEP: 2\nFINAL ANSWER: (B) Paris' },
      },
      { model: 'vlm', match: has('(no passages were retrieved)'), reply: { text: 'From what I know.\nFINAL ANSWER: (B) Paris' } },
      { model: 'vlm', reply: { text: 'The passages say Rome.\nFINAL ANSWER: (A) Rome' } },
    ],
    SCIENCE,
  );
  assert.equal(synth.length, 3, 'with retrieval, without retrieval, the choice');
  const [withR, without, choose] = synth.map(userText);
  for (const t of [withR, without]) {
    assert.match(t, /\(A\) Rome\n\(B\) Paris/, 'the options');
    assert.match(t, /Context: Bob Stone is a film director\./, 'the question context');
  }
  assert.match(withR, /Evidence passages:\n\[1\]/, 'with retrieval: the passages');
  assert.match(withR, /Reasoning paths/);
  assert.match(without, /\(no passages were retrieved\)/);
  assert.doesNotMatch(without, /Reasoning paths/, 'without retrieval: no paths');
  assert.equal(imageParts(synth[1]), 0, 'without retrieval: no retrieved image');
  assert.match(choose, /Candidate 2 \(without retrieval\):\nFrom what I know\./);
  assert.equal(result.finalAnswer, '(B) Paris');
  assert.equal(result.counters!.keptWithoutRetrieval, 1);
  assert.equal((events.find((e) => e.kind === 'candidate-choice') as { kept?: number }).kept, 2);
  assert.deepEqual(keptOf('FINAL ANSWER: (A) Rome', ['(A) Rome', '(B) Paris'], ['Rome', 'Paris']), { kept: 1, how: 'final-answer' });
  assert.deepEqual(keptOf('no idea', ['(A) Rome', '(B) Paris'], ['Rome', 'Paris']), { kept: 1, how: 'default' });
});

test('a pattern reply without a pattern is asked once more; twice without one, the rule parser parses and the question goes on, recorded', async () => {
  const answer: ScriptRule = { model: 'vlm', reply: { text: 'FINAL ANSWER: Paris' } };
  const second = await run({}, [{ model: 'pat', reply: [{ text: 'I think Paris.' }, { text: PATTERN }] }, answer]);
  assert.equal(second.pattern.length, 2, 'asked twice');
  assert.match(JSON.stringify(second.pattern[1].body.messages), /I think Paris\./, 'the retry carries the unusable reply (a different request)');
  assert.match(String(second.result.system!.pattern), /second try/);
  const rules = await run({}, [{ model: 'pat', reply: { text: 'I think Paris.' } }, answer]);
  assert.equal(rules.pattern.length, 2, 'one retry only');
  assert.equal(rules.result.finalAnswer, 'Paris', 'the question is answered, not failed');
  assert.match(String(rules.result.system!.pattern), /rule parser/);
  assert.equal(rules.result.counters!.patternFallbacks, 1);
  assert.match(String((rules.result.system!.departures as string[])[0]), /two unusable replies/);
  const ev = rules.events.find((e) => e.kind === 'pattern') as { departure?: string; conditions?: unknown[] };
  assert.match(String(ev.departure), /rule parser parsed the question/);
  assert.ok(ev.conditions!.length >= 1, 'the rules wrote condition triples');
});

test('a text-only synth endpoint is refused before any call of the question: one tiny image probe, its verdict kept per endpoint', async () => {
  clearImageProbes();
  const server = await ScriptedServer.start();
  server.on({
    model: 'vlm',
    match: (r) => JSON.stringify(r.body.messages).includes('image_url'),
    reply: { status: 400, error: 'this model does not accept image input' },
  });
  server.on({ model: 'vlm', reply: { text: 'FINAL ANSWER: Paris' } });
  server.on({ model: 'pat', reply: { text: PATTERN } });
  const router = routerFor(server, { stages: STAGES });
  const root = ownScratch('kf-dualg-probe-');
  try {
    const ctx = (): PipelineContext => ({
      question: QUESTION,
      model: (stage) => router.forStage(stage),
      kb: graphKb(toyIndexWithChart(root).id),
      convention: 'generic',
      settings: {},
      rng: makeRng('t'),
      signal: new AbortController().signal,
      trace: () => {},
    });
    const pipeline = dualgPipeline('DG', '', dualgSettings.parse({ retriever: 'dualg-gnn' }));
    for (let i = 0; i < 2; i++)
      await assert.rejects(pipeline.run(ctx()), (e: Error & { code?: string; hint?: string }) => {
        assert.equal(e.code, 'model_no_vision');
        assert.match(e.message, /synth stage's model vlm refused a request with one image part/);
        assert.match(String(e.hint), /models\.stages\.synth to a vision-capable model/);
        return true;
      });
    const probes = server.requests.filter(isProbe);
    assert.equal(probes.length, 1, 'one probe for the endpoint, its verdict kept');
    assert.equal(server.requests.filter((r) => r.model === 'pat').length, 0, 'refused before the pattern stage: no budget spent');
    // The text-only generator sends no image: it is never probed and runs.
    const text = await dualgPipeline('DG-textgen', '', dualgSettings.parse({ retriever: 'dualg-gnn', generator: 'text' })).run(ctx());
    assert.equal(text.finalAnswer, 'Paris');
    assert.equal(server.requests.filter(isProbe).length, 1);
  } finally {
    await router.close();
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
