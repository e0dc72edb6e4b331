import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findJsonObject, parseAgentObject, parseJsonLoose, parseToolArguments, repairJson, stripCodeFences } from '../../lib/model-api/json-repair';

test('strips code fences, keeping the inside (also an unclosed fence)', () => {
  assert.equal(stripCodeFences('Sure:\n```json\n{"a": 1}\n```\nbye').includes('{"a": 1}'), true);
  assert.equal(stripCodeFences('```json\n{"a": 1}\n```').trim(), '{"a": 1}');
  assert.equal(stripCodeFences('```\n{"a": 2').trim(), '{"a": 2');
});

test('takes the first JSON object having final/tool/action, skipping others', () => {
  const text = 'I think {"note": "not this"} and then {"thought": "go", "tool": "search_knowledge", "args": {"query": "x"}} and {"final": "ok"}';
  const p = parseAgentObject(text)!;
  assert.equal(p.value.tool, 'search_knowledge');
  assert.deepEqual(p.value.args, { query: 'x' });
  assert.equal(p.repaired, false);
  assert.equal(parseAgentObject('{"action": "list_books", "args": {}}')!.value.action, 'list_books');
  assert.equal(parseAgentObject('no json here at all'), undefined);
});

test('finds an inner object when the outer one lacks the keys', () => {
  const p = parseAgentObject('{"response": {"thought": "t", "final": "ok"}}')!;
  assert.equal(p.value.final, 'ok');
});

test('repairs trailing commas', () => {
  const p = parseAgentObject('{"thought": "a", "tool": "t", "args": {"q": [1, 2,],},}')!;
  assert.deepEqual(p.value.args, { q: [1, 2] });
  assert.equal(p.repaired, true);
});

test('repairs an unclosed string and unclosed brackets (a reply cut by max_tokens)', () => {
  const p = parseAgentObject('{"thought": "searching", "tool": "search_knowledge", "args": {"query": "director of Incep')!;
  assert.equal(p.value.tool, 'search_knowledge');
  assert.deepEqual(p.value.args, { query: 'director of Incep' });
  assert.equal(p.repaired, true);
});

test('repairs a dangling key, raw newlines in strings, Python literals, single quotes', () => {
  assert.deepEqual(parseJsonLoose('{"a": 1, "b":')!.value, { a: 1, b: null });
  assert.deepEqual(parseJsonLoose('{"a": 1, "b"')!.value, { a: 1, b: null });
  assert.deepEqual(parseJsonLoose('{"t": "line1\nline2"}')!.value, { t: 'line1\nline2' });
  assert.deepEqual(parseJsonLoose("{'need_more': True, 'x': None, 'n': 1.5e3}")!.value, { need_more: true, x: null, n: 1500 });
  assert.deepEqual(parseJsonLoose('{"a": [1, {"b": 2}')!.value, { a: [1, { b: 2 }] });
  assert.deepEqual(JSON.parse(repairJson('{"a": "x\\')), { a: 'x' });
});

test('ignores prose after a complete object, and fenced JSON with prose around it', () => {
  assert.deepEqual(findJsonObject('{"a": 1} trailing words {')!.value, { a: 1 });
  const fenced = 'Here is my step:\n```json\n{\n  "thought": "t",\n  "final": "ok",\n}\n```\nThanks';
  assert.equal(parseAgentObject(fenced)!.value.final, 'ok');
});

test('tool arguments: JSON text, fenced, repaired, or rejected when not an object', () => {
  assert.deepEqual(parseToolArguments('{"query": "x"}')!.value, { query: 'x' });
  assert.deepEqual(parseToolArguments('')!.value, {});
  assert.deepEqual(parseToolArguments('{"query": "x",}')!.value, { query: 'x' });
  assert.equal(parseToolArguments('{"query": "x"')!.repaired, true);
  assert.equal(parseToolArguments('[1, 2]'), undefined);
  assert.equal(parseToolArguments('not json'), undefined);
});
