/**
 * `kf score`: a predictions file scored with a benchmark's scorer, in process:
 * inline golds (M3DocVQA list credit as the released scorer, MultiHop-RAG null
 * questions, MMLongBench-Doc's official accuracy/F1), ids of the benchmark's
 * questions (the shared MMLongBench-Doc dev file; skipped when absent), and
 * bad lines refused with their line number and nothing written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kfInProcess } from '../_shared/cli-in-process';
import { ownScratch } from '../_shared/scratch';
import { benchDir } from '../../lib/util/paths';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { nonEmpty } from '../_shared/non-empty';

function jsonl(dir: string, name: string, rows: unknown[]): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return f;
}

test('kf score m3docvqa: inline golds, reply-based prediction, one scored line per input', async () => {
  const dir = ownScratch('kf-score-');
  try {
    const preds = jsonl(dir, 'p.jsonl', [
      { id: 'a', gold: ['Paris', 'Rome'], response: "Reasoning [1].\nFINAL ANSWER: ['Paris']" },
      { id: 'b', gold: 'Lake Ontario', response: 'Lake Ontario, I think' }, // no final line: empty prediction
      { id: 'c', gold: 'Lake Ontario', final: 'lake ontario' },
    ]);
    const out = path.join(dir, 'scored.jsonl');
    const r = await kfInProcess(['score', '--bench', 'm3docvqa', '--predictions', preds, '--out', out]);
    assert.equal(r.code, 0, r.err);
    const summary = JSON.parse(r.out);
    assert.equal(summary.n, 3);
    assert.equal(summary.inlineGold, 3);
    assert.equal(summary.mean.em, Math.round((1 / 3) * 1e4) / 1e4);
    assert.equal(summary.mean.f1, Math.round(((2 / 3 + 0 + 1) / 3) * 1e4) / 1e4);
    const lines = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => l.id),
      ['a', 'b', 'c'],
    );
    assert.ok(Math.abs(lines[0].scores.f1 - 2 / 3) < 1e-12);
    assert.equal(lines[0].scores.f1Harness, 0.5);
    assert.equal(lines[1].scores.f1, 0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('kf score multihop-rag and mmlongbench-doc with inline golds: acc/f1/em; the official MMLongBench-Doc accuracy and F1', async () => {
  const dir = ownScratch('kf-score-');
  try {
    const mhr = jsonl(dir, 'mhr.jsonl', [
      { gold: 'Insufficient information.', type: 'null', response: 'FINAL ANSWER: Insufficient information' },
      { gold: 'Sam Bankman-Fried', final: 'Bankman-Fried' },
    ]);
    const r1 = await kfInProcess(['score', '--bench', 'multihop-rag', '--predictions', mhr]);
    assert.equal(r1.code, 0, r1.err);
    const s1 = JSON.parse(r1.out);
    assert.equal(s1.mean.acc, 1);
    assert.equal(s1.mean.em, 0.5);
    const mmlb = jsonl(dir, 'mmlb.jsonl', [
      { gold: '18.29%', answer_format: 'Float', final: '0.1829' },
      { gold: 'Not answerable', answer_format: 'None', final: 'The document does not say' },
      { gold: 'Less well-off', answer_format: 'Str', final: 'Not answerable' },
    ]);
    const r2 = await kfInProcess(['score', '--bench', 'mmlongbench-doc', '--predictions', mmlb]);
    assert.equal(r2.code, 0, r2.err);
    const s2 = JSON.parse(r2.out);
    assert.equal(s2.official.acc, Math.round((2 / 3) * 1e4) / 1e4);
    // Recall over answerable gold 1/2, precision over answered predictions 1/1: F1 2/3.
    assert.equal(s2.official.f1, Math.round((2 / 3) * 1e4) / 1e4);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('kf score: bad lines are refused with their line number, nothing is written', async () => {
  const dir = ownScratch('kf-score-');
  try {
    const out = path.join(dir, 'scored.jsonl');
    const noAnswer = jsonl(dir, 'bad1.jsonl', [
      { id: 'a', gold: 'x', final: 'x' },
      { id: 'b', gold: 'y' },
    ]);
    const r1 = await kfInProcess(['score', '--bench', 'm3docvqa', '--predictions', noAnswer, '--out', out]);
    assert.notEqual(r1.code, 0);
    assert.match(r1.err, /line 2 has neither "response" nor "final"/);
    fs.writeFileSync(path.join(dir, 'bad2.jsonl'), '{"gold": "x", "final": "x"}\n{not json\n');
    const r2 = await kfInProcess(['score', '--bench', 'm3docvqa', '--predictions', path.join(dir, 'bad2.jsonl'), '--out', out]);
    assert.match(r2.err, /line 2 is not valid JSON/);
    const unknown = jsonl(dir, 'bad3.jsonl', [{ id: 'no-such-question', final: 'x' }]);
    const q = path.join(dir, 'q.json');
    fs.writeFileSync(q, '[]');
    const r3 = await kfInProcess(['score', '--bench', 'demo', '--predictions', unknown, '--questions', q]);
    assert.notEqual(r3.code, 0);
    assert.ok(!fs.existsSync(out));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const MMLB = benchDir('mmlongbench-doc', 'samples.dev.json');
test('kf score mmlongbench-doc by question id (the shared dev samples)', { skip: fs.existsSync(MMLB) ? false : `${MMLB} is absent` }, async () => {
  const dir = ownScratch('kf-score-');
  try {
    const samples = JSON.parse(fs.readFileSync(MMLB, 'utf8')) as { answer: string }[];
    const r0 = await kfInProcess(['subset', '--bench', 'mmlongbench-doc', '--n', '3', '--seed', '1', '--out', path.join(dir, 's.json')]);
    assert.equal(r0.code, 0, r0.err);
    const ids = (JSON.parse(fs.readFileSync(path.join(dir, 's.json'), 'utf8')) as { ids: string[] }).ids;
    assert.equal(ids.length, 3);
    assert.ok(samples.length > 3);
    const preds = jsonl(
      dir,
      'p.jsonl',
      ids.map((id) => ({ id, final: 'Not answerable' })),
    );
    const r = await kfInProcess(['score', '--bench', 'mmlongbench-doc', '--predictions', preds]);
    assert.equal(r.code, 0, r.err);
    const s = JSON.parse(r.out);
    assert.equal(s.n, 3);
    assert.equal(s.inlineGold, 0);
    assert.ok(s.official.n === 3);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('kf score mmlongbench-doc with a judge: the benchmark extraction prompt from a checkout, sent as its eval sends it', async () => {
  const dir = ownScratch('kf-score-judge-');
  const server = await ScriptedServer.start();
  try {
    // A stand-in checkout: eval/prompt_for_answer_extraction.md in our own words.
    fs.mkdirSync(path.join(dir, 'mmlb', 'eval'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'mmlb', 'eval', 'prompt_for_answer_extraction.md'), 'Stand-in extraction prompt: pull the short answer out.');
    server.on({
      match: () => true,
      reply: (req) => ({
        text: JSON.stringify(req.body?.messages ?? []).includes('Paris')
          ? 'Extracted answer: Paris\nAnswer format: String'
          : 'Extracted answer: 3\nAnswer format: Integer',
      }),
    });
    const preds = jsonl(dir, 'p.jsonl', [
      { id: 'a', gold: 'Paris', answer_format: 'Str', question: 'Which city?', response: 'It is Paris [1].' },
      { id: 'b', gold: '4', answer_format: 'Int', question: 'How many?', response: 'There are three [2].' },
    ]);
    const args = ['score', '--bench', 'mmlongbench-doc', '--predictions', preds, '--judge-url', server.url, '--judge-model', 'judge'];
    const r = await kfInProcess([...args, '--extraction-prompt', path.join(dir, 'mmlb')]);
    assert.equal(r.code, 0, r.err);
    const summary = JSON.parse(r.out);
    assert.equal(summary.mean.acc, 0.5, 'Paris extracted and right; 3 extracted and wrong');
    const first = nonEmpty(server.requests, 'judge requests')[0].body as { messages: { role: string; content: string }[]; max_tokens: number };
    assert.deepEqual(
      first.messages.map((m) => m.role),
      ['user', 'assistant'],
    );
    assert.equal(first.messages[0].content, 'Stand-in extraction prompt: pull the short answer out.');
    assert.equal(first.messages[1].content, '\n\nQuestion:Which city?\nAnalysis:It is Paris [1].\n');
    assert.equal(first.max_tokens, 256);
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
