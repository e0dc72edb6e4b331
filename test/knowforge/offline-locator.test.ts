/**
 * The offline Locator and bridge judge reformulate like a model reading its
 * results: question titles not found yet, then next-hop names after relation
 * cues in first-hop documents, never a query twice; the judge asks for the
 * missing next-hop document seen in the pool.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bridgeNames, nameMentions, questionTitles } from '../../lib/knowforge/offline/bridge-entities';
import { bridgeJudge, poolBlocks } from '../../lib/knowforge/offline/bridge-judge';
import { locatorReply, nextQuery } from '../../lib/knowforge/offline/locator';
import type { ChatRequest } from '../../lib/model-api/types';

test('names keep initials and particles; question titles come from the usual multi-hop shapes', () => {
  assert.deepEqual(
    nameMentions('a film directed by Albert S. Rogell and starring Art Acord.').map((m) => m.name),
    ['Albert S. Rogell', 'Art Acord'],
  );
  assert.deepEqual(questionTitles("Which film has the director who is older, God'S Gift To Women or Aldri Annet Enn Bråk?"), [
    "God'S Gift To Women",
    'Aldri Annet Enn Bråk',
  ]);
  assert.deepEqual(questionTitles('Where was the director of film The Circus Cyclone born?'), ['Circus Cyclone']);
  assert.deepEqual(questionTitles('Who is the father-in-law of John Ernest, Duke Of Saxe-Eisenach?'), ['John Ernest, Duke Of Saxe-Eisenach']);
});

test('the next hop is the name after the cue of the relation asked (director, not the star)', () => {
  const hits = [{ doc: 'The Circus Cyclone', text: 'The Circus Cyclone is a 1925 American Western film starring Art Acord and directed by Albert S. Rogell.' }];
  assert.equal(bridgeNames('Where was the director of film The Circus Cyclone born?', hits)[0], 'Albert S. Rogell');
  assert.equal(nextQuery('Where was the director of film The Circus Cyclone born?', ['director film Circus Cyclone born'], hits), 'Albert S. Rogell');
  // Already found: the name has its own document among the hits, so it is not asked again.
  const withBridge = [...hits, { doc: 'Albert S. Rogell', text: 'Albert S. Rogell was an American film director born in Oklahoma City.' }];
  assert.notEqual(nextQuery('Where was the director of film The Circus Cyclone born?', ['director film Circus Cyclone born'], withBridge), 'Albert S. Rogell');
});

test('the offline Locator reads its own results from the conversation (JSON protocol) and never repeats a query', () => {
  const question = 'Which film has the director born first, Alpha Quest or Gamma Ray?';
  const req = (messages: ChatRequest['messages']): ChatRequest => ({ stage: 'locator', messages, task: { role: 'locator', question } });
  const first = JSON.parse(
    locatorReply(
      req([
        { role: 'system', content: 's' },
        { role: 'user', content: question },
      ]),
      { role: 'locator', question, maxQueries: 3 },
    ).text,
  );
  assert.equal(first.tool, 'search_knowledge');
  const result = {
    query: first.args.query,
    hits: [{ id: 'a#0', doc: 'Alpha Quest', kind: 'text', text: 'Alpha Quest is a 1950 film directed by Bob Stone.' }],
  };
  const msgs: ChatRequest['messages'] = [
    { role: 'system', content: 's' },
    { role: 'user', content: question },
    { role: 'assistant', content: JSON.stringify(first) },
    { role: 'user', content: `Result of search_knowledge:\n${JSON.stringify(result)}` },
  ];
  const second = JSON.parse(locatorReply(req(msgs), { role: 'locator', question, maxQueries: 3 }).text);
  assert.equal(second.args.query, 'Gamma Ray', 'the question title not found yet comes first');
  msgs.push(
    { role: 'assistant', content: JSON.stringify(second) },
    { role: 'user', content: `Result of search_knowledge:\n${JSON.stringify({ query: 'Gamma Ray', hits: [] })}` },
  );
  const third = JSON.parse(locatorReply(req(msgs), { role: 'locator', question, maxQueries: 3 }).text);
  assert.equal(third.args.query, 'Bob Stone', 'then the next hop of the first-hop document');
  msgs.push({ role: 'assistant', content: JSON.stringify(third) }, { role: 'user', content: 'Result of search_knowledge:\n{"hits": []}' });
  const fourth = JSON.parse(locatorReply(req(msgs), { role: 'locator', question, maxQueries: 3 }).text);
  assert.equal(fourth.final, 'ok', 'the query budget is spent: finish');
});

test('the offline judge asks for the missing next-hop document named in the pool, and is satisfied once it is there', () => {
  const pool =
    '[1] (text · Alpha Quest · id=a#0)\nAlpha Quest is a 1950 film directed by Bob Stone.\n\n[2] (text · Gamma Ray · id=g#0)\nGamma Ray is a 1960 film directed by Eve Moss.';
  assert.equal(poolBlocks(pool).length, 2);
  const question = 'Which film has the director born first, Alpha Quest or Gamma Ray?';
  const r = bridgeJudge({ role: 'judge', question, queriesRun: ['Alpha Quest'], pool });
  assert.equal(r.need_more, true);
  assert.deepEqual(r.queries, ['Bob Stone', 'Eve Moss']);
  const full = `${pool}\n\n[3] (text · Bob Stone · id=b#0)\nBob Stone was born in 1910.\n\n[4] (text · Eve Moss · id=e#0)\nEve Moss was born in 1920.`;
  assert.equal(bridgeJudge({ role: 'judge', question, queriesRun: ['Alpha Quest', 'Bob Stone', 'Eve Moss'], pool: full }).need_more, false);
});
