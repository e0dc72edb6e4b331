/**
 * The Python-literal parser used for MMLongBench-Doc's list fields and the
 * official scorer's eval() of lists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PyLiteralError, parsePyLiteral, parsePyStringList, pyFloatRepr } from '../../lib/bench/python-literal';

test('literals: strings with escapes and both quotes, numbers, True/False/None, nesting, trailing commas', () => {
  assert.deepEqual(parsePyLiteral("['White', '10%']"), ['White', '10%']);
  assert.deepEqual(parsePyLiteral(`["it's", 'say "hi"', 'a\\'b', 'tab\\there', '\\u00e9']`), ["it's", 'say "hi"', "a'b", 'tab\there', 'é']);
  assert.deepEqual(parsePyLiteral('[16, 19, -2.5, 1e3, 1_000]'), [16, 19, -2.5, 1000, 1000]);
  assert.deepEqual(parsePyLiteral('[True, False, None, [1, (2, 3)], ]'), [true, false, null, [1, [2, 3]]]);
  assert.deepEqual(parsePyLiteral("'a' 'b'"), 'ab');
  assert.deepEqual(parsePyLiteral('[]'), []);
  for (const bad of ["['a', ", '[a, b]', '[1 2]', "'open", '[null]', '']) assert.throws(() => parsePyLiteral(bad), PyLiteralError, bad);
});

test("parsePyStringList gives Python's str() of each element (ints vs floats as written)", () => {
  assert.deepEqual(parsePyStringList('[16, 19.0, 2.50, 1e3]'), ['16', '19.0', '2.5', '1000.0']);
  assert.deepEqual(parsePyStringList("['a', 3]"), ['a', '3']);
  assert.deepEqual(parsePyStringList("'single'"), ['single']);
  assert.equal(pyFloatRepr(1e-5), '1e-05');
  assert.equal(pyFloatRepr(2.5e20), '2.5e+20');
  assert.equal(pyFloatRepr(3), '3.0');
  assert.equal(pyFloatRepr(3, true), '3');
});
