import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findFinalAnswer, replaceFinalAnswer, formatFinalValue } from '../../lib/answer/final-answer';
import { parseCheckerReply } from '../../lib/answer/checker';
import { synthMessages } from '../../lib/answer/synthesizer';
import { fillPrompt } from '../../lib/util/prompts';
import { conventionFor, refusalValue } from '../../lib/answer/conventions';
import type { Question } from '../../lib/bench/types';

test('final answer: the LAST line wins; markdown bold tolerated; replacement keeps the rest', () => {
  const t = 'Reasoning [1].\nFINAL ANSWER: foo\nmore\n**FINAL ANSWER:** bar';
  assert.equal(findFinalAnswer(t), 'bar');
  assert.equal(findFinalAnswer('no line'), undefined);
  assert.equal(replaceFinalAnswer(t, 'baz'), 'Reasoning [1].\nFINAL ANSWER: foo\nmore\nFINAL ANSWER: baz');
  assert.equal(replaceFinalAnswer('just text', '42'), 'just text\nFINAL ANSWER: 42');
  assert.equal(formatFinalValue(['a', 'b']), '["a","b"]');
});

test('checker reply parsing: fenced, prose-wrapped, lists, trailing commas, truncated', () => {
  assert.equal(parseCheckerReply('{"final": "Rick Mears"}'), 'Rick Mears');
  assert.equal(parseCheckerReply('```json\n{"final": "yes"}\n```'), 'yes');
  assert.deepEqual(parseCheckerReply('Sure: {"final": ["a", "b",]}'), ['a', 'b']);
  assert.equal(parseCheckerReply('{"final": "Not answ'), 'Not answ');
  assert.equal(parseCheckerReply('{"final": 1999}'), '1999');
  assert.equal(parseCheckerReply('no json here'), undefined);
});

test('prompts: every placeholder must be supplied', () => {
  assert.throws(() => fillPrompt('synth-user', { question: 'q' }), /needs \{\{materials\}\}/);
});

test('synthesizer messages: our prompt vs M3DocRAG-style vs closed book carry the convention guardrail', () => {
  const q: Question = { id: 'q1', benchmark: 'm3docvqa', question: 'Who?', answer: 'x', format: 'span', goldDocs: [], evidence: [], modality: [], meta: {} };
  const pool = {
    text: '[1] (text · Doc) hello',
    blocks: [],
    numberOf: new Map(),
    stats: {
      blocks: 1,
      chars: 10,
      trimmed: false,
      evicted: { text: 0, image: 0, table: 0, example: 0 },
      byKind: { text: 1, image: 0, table: 0, example: 0 },
      offered: 1,
    },
  };
  const ours = synthMessages({ question: q, convention: 'm3docvqa', template: 'ours', pool });
  assert.equal(ours[0].role, 'system');
  assert.match(String(ours[0].content), /has its answer somewhere in the knowledge base/);
  assert.match(String(ours[1].content), /Materials:\n\[1\] \(text · Doc\) hello/);
  assert.match(String(ours[1].content), /the knowledge base always holds the answer/);
  const m3 = synthMessages({ question: q, convention: 'mmlongbench', template: 'm3docrag', pool });
  assert.equal(m3.length, 1);
  assert.match(String(m3[0].content), /Context:\n\[1\]/);
  assert.match(String(m3[0].content), /'Not answerable'/);
  const s0 = synthMessages({ question: q, convention: 'multihoprag', template: 'closed-book' });
  assert.doesNotMatch(String(s0[0].content), /Materials/);
  assert.match(String(s0[0].content), /Insufficient information/);
  assert.equal(conventionFor('MultiHop-RAG'), 'multihoprag');
  assert.equal(refusalValue('m3docvqa'), null);
});
