import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { jsonErrorAt, lineColumnAt } from '../../lib/util/json-error-at';
import { loadExperiment } from '../../lib/run/config';
import { readModelsConfigFile } from '../../lib/models/config-file';
import { ownScratch } from '../_shared/scratch';
import { nonEmpty } from '../_shared/non-empty';

const BROKEN: [string, number, number][] = [
  ['{\n  "a": 1,\n}', 3, 1], // trailing comma: the closing brace cannot start a key
  ['{\n  "a": \n}', 3, 1],
  ['{"a": 1 "b": 2}', 1, 9],
  ['[1, 2,, 3]', 1, 7],
  ['{\n  // comment\n  "a": 1\n}', 2, 3],
  ['{"a": "line\nbreak"}', 1, 12],
  ['{"a": tru}', 1, 7],
  ['{"a": 1}\n{"b": 2}', 2, 1],
  ['{"a": [1, 2}', 1, 12],
  ['', 1, 1],
  ['{"a": 1', 1, 8],
];

test('jsonErrorAt: line and column of the first character that breaks the grammar', () => {
  for (const [text, line, column] of BROKEN) {
    assert.throws(() => JSON.parse(text), SyntaxError, `sample ${JSON.stringify(text)} is broken JSON`);
    const at = jsonErrorAt(text);
    assert.deepEqual(at && [at.line, at.column], [line, column], `sample ${JSON.stringify(text)}`);
  }
});

test('jsonErrorAt: undefined exactly when JSON.parse accepts the text', () => {
  const good = ['{}', '[]', ' {"a": [1, -2.5e3, true, false, null, "x\\"\\u00e9"], "b": {"c": {}}} ', '"s"', '0', '[0.5]'];
  for (const text of nonEmpty(good, 'valid samples')) {
    JSON.parse(text);
    assert.equal(jsonErrorAt(text), undefined, text);
  }
  for (const text of ['01', '[1,]', '{"a":1,}', '"\\x"', '[.5]', '{a: 1}']) {
    assert.throws(() => JSON.parse(text));
    assert.ok(jsonErrorAt(text), `${text} is found broken`);
  }
  assert.deepEqual(lineColumnAt('ab\ncd', 4), { offset: 4, line: 2, column: 2 });
});

test('a JSON experiment or models config with a syntax error names file:line:column', () => {
  const dir = ownScratch('kf-json-err-');
  try {
    const exp = path.join(dir, 'bad.json');
    fs.writeFileSync(exp, '{\n  "benchmark": {"name": "demo"},\n  "pipeline": {"name": "S4"},\n}\n');
    assert.throws(() => loadExperiment(exp), /bad\.json:4:1: invalid JSON/);
    const models = path.join(dir, 'models.json');
    fs.writeFileSync(models, '{\n  "defaults": {\n    "model": "x"\n    "baseUrl": "http://localhost:1/v1"\n  }\n}\n');
    assert.throws(() => readModelsConfigFile(models), /models\.json:4:5 is not valid JSON/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
