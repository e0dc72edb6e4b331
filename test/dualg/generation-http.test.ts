/**
 * DualG-MRAG generation as the paper, over REAL HTTP (scripted server, one model per stage): the pattern stage
 * parses the query (its conditions reach the graph search, its visual budget k_v caps the images), the
 * synthesizer request carries the path snippets and the raw images as image parts; the text-only generator
 * sends no image and says so in its label; w/o Path never reads the decoded paths. The unified prompt itself,
 * WebQA's and ScienceQA's settings and the pattern retry: paper-generator-http.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { dualgPipeline, dualgSettings } from '../../lib/dualg/pipeline';
import { patternOf } from '../../lib/dualg/query/pattern-stage';
import { searchPattern } from '../../lib/dualg/query/search-pattern';
import type { KbSearchOptions, KnowledgeBase } from '../../lib/pipeline/knowledge-base';
import type { RankedEvidence } from '../../lib/pipeline/ranked-evidence';
import { withPaths, type EvidencePath } from '../../lib/dualg/paths/evidence-path';
import { ScriptedServer, type RecordedRequest } from '../../lib/models/testing/scripted-server';
import type { PipelineContext, TraceEvent } from '../../lib/pipeline/types';
import { makeRng } from '../../lib/util/rng';
import { routerFor } from '../models/helpers';
import { toyFragmentsWithChartFile, toyIndexWithChart, toyKb } from '../knowforge/toy-kb';
import { ownScratch } from '../_shared/scratch';
import { clearImageProbes } from '../../lib/dualg/image-probe';
import { loadPrompt } from '../../lib/util/prompts';

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

/** The toy knowledge base whose DualG mode returns fixed hits, the paths (a getter: reading it is recorded) and an identity. */
function graphKb(id: string, reads: { paths: number; options: KbSearchOptions[] }): KnowledgeBase {
  const base = toyKb(toyFragmentsWithChartFile());
  return {
    ...base,
    id,
    async search(query: string, opts: KbSearchOptions = {}): Promise<RankedEvidence> {
      reads.options.push(opts);
      const r = await base.search('Alpha Quest directed Bob Stone born Paris', { ...opts, k: 3 });
      const out: RankedEvidence = {
        ...r,
        retriever: String(opts.mode),
        system: { label: 'scorer gnn (checkpoint abc, preset paper 6x512)', scorer: 'gnn', removed: [] },
      };
      // DualG's paths ride in the method-neutral `extra`: a getter records whether the pipeline read them.
      Object.defineProperty(out, 'extra', {
        enumerable: true,
        get: () => {
          reads.paths++;
          return withPaths(PATHS);
        },
      });
      return out;
    },
  } as KnowledgeBase;
}

async function run(settings: Record<string, unknown>, patternReply: string) {
  clearImageProbes();
  const server = await ScriptedServer.start();
  server.on({ model: 'pat', reply: { text: patternReply } });
  server.on({ model: 'vlm', reply: { text: 'Bob Stone, the director, was born in Paris [1].\nFINAL ANSWER: Paris' } });
  server.on({ model: 'chk', reply: { text: '{"final": "Paris"}' } });
  const router = routerFor(server, { stages: STAGES });
  const root = ownScratch('kf-dualg-gen-');
  const reads = { paths: 0, options: [] as KbSearchOptions[] };
  const events: TraceEvent[] = [];
  try {
    const ctx: PipelineContext = {
      question: { id: 'q1', benchmark: 'demo', question: 'Where was the director of Alpha Quest born?', answer: 'Paris' } as PipelineContext['question'],
      model: (stage) => router.forStage(stage),
      kb: graphKb(toyIndexWithChart(root).id, reads),
      convention: 'generic',
      settings: {},
      rng: makeRng('t'),
      signal: new AbortController().signal,
      trace: (e) => events.push(e),
    };
    const result = await dualgPipeline('DG', '', dualgSettings.parse({ retriever: 'dualg-gnn', ...settings })).run(ctx);
    // The image probe (image-probe.ts) is not part of the question's calls.
    const probe = loadPrompt('dualg-image-probe');
    const chat = (model: string): RecordedRequest[] =>
      server.requests.filter((r) => r.kind === 'chat' && r.model === model && !JSON.stringify(r.body.messages).includes(probe));
    return { result, reads, events, synth: chat('vlm'), pattern: chat('pat') };
  } finally {
    await router.close();
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const PATTERN = JSON.stringify({
  conditions: [
    ['Alpha Quest', 'directed by', '?d'],
    ['?d', 'born in', '?x'],
  ],
  target: '?x (place)',
  visual_budget: 1,
});
const parts = (r: RecordedRequest) => r.body.messages[r.body.messages.length - 1].content as { type: string; text?: string }[];

test('paper generator: the pattern stage parses, the synthesizer gets path snippets and the raw image as an image part', async () => {
  const { result, reads, synth, pattern, events } = await run({}, PATTERN);
  assert.equal(pattern.length, 1, 'one pattern call over HTTP');
  assert.match(JSON.stringify(pattern[0].body.messages), /Where was the director of Alpha Quest born\?/);
  assert.deepEqual(searchPattern(reads.options[0])?.conditions, [
    ['Alpha Quest', 'directed by', '?d'],
    ['?d', 'born in', '?x'],
  ]);
  assert.match(String(searchPattern(reads.options[0])?.by), /^model /, 'the model parsed, and the search is told so');
  assert.deepEqual(searchPattern(reads.options[0])?.entities, ['Alpha Quest'], 'the entities the parser recognised go to linking');
  assert.equal(synth.length, 1);
  const content = parts(synth[0]);
  assert.ok(Array.isArray(content), 'a multimodal user message');
  assert.equal(content.filter((p) => p.type === 'image_url').length, 1, 'k_v = 1: one image part');
  const text = content.find((p) => p.type === 'text')!.text!;
  assert.match(text, /Alpha Quest -directed by-> Bob Stone \[alpha\]: ".*directed by Bob Stone/, 'the step with its source snippet');
  assert.match(text, /Bob Stone -born in-> Paris \[bob\]: ".*born in Paris/);
  assert.ok(reads.paths >= 1);
  assert.equal(result.finalAnswer, 'Paris');
  assert.match(result.system!.label, /scorer gnn \(checkpoint abc.*generator: unified prompt, path snippets \+ raw images up to k_v \(paper\)/);
  assert.equal(result.system!.pattern, 'model pat', 'who parsed the pattern is in the identity');
  assert.equal(result.counters!.imagesSent, 1);
  assert.deepEqual((events.find((e) => e.kind === 'pool') as unknown as { images: string[] }).images, ['alpha#1']);
});

test('a visual budget of 0 sends no image; the text-only generator sends none either and is labelled a variant', async () => {
  const none = await run({}, JSON.stringify({ conditions: [['?x', 'born in', 'Paris']], target: '?x', visual_budget: 0 }));
  assert.equal(typeof parts(none.synth[0]), 'string', 'k_v = 0: a text-only message');
  const text = await run({ generator: 'text' }, PATTERN);
  assert.equal(typeof parts(text.synth[0]), 'string', 'text-only generator: no image part');
  assert.match(String(parts(text.synth[0])), /1\. Alpha Quest -directed by-> Bob Stone \[alpha\]; Bob Stone -born in-> Paris \[bob\]/);
  assert.match(text.result.system!.label, /generator: text-only path lines \(variant, not the paper\)/);
});

test('w/o Path: the decoded paths are never read and the label says path injection was removed', async () => {
  const { reads, synth, result } = await run({ paths: false }, PATTERN);
  assert.equal(reads.paths, 0, 'the paths of the search result were never read');
  assert.doesNotMatch(JSON.stringify(synth[0].body.messages), /Reasoning paths|-directed by->/);
  assert.match(result.system!.label, /; without path injection;/);
  assert.deepEqual(result.system!.removed, ['path injection']);
});

test('k_v is capped by maxImages (a pattern reply without a pattern: test/dualg/paper-generator-http.test.ts)', () => {
  assert.equal(patternOf('{"conditions": [["?x", "born in", "Paris"]], "visual_budget": 9}', 4)?.visualBudget, 4, 'k_v capped by maxImages');
});
