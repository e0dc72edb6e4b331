/**
 * The workflows the README teaches are kf commands (issue 16): `kf train gnn` and `kf kfold`
 * print their usage with --help, and a misspelled flag fails with a one-line did-you-mean
 * instead of a stack trace.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kfInProcess as kf } from '../_shared/cli-in-process';

test('kf train gnn --help prints its usage and options', async () => {
  const r = await kf(['train', 'gnn', '--help']);
  assert.equal(r.code, 0, r.err);
  const text = r.out + r.err;
  assert.match(text, /Usage: kf train gnn/);
  for (const flag of ['--bench', '--index', '--fold-epochs', '--pretrain-epochs', '--replay']) assert.ok(text.includes(flag), `usage names ${flag}`);
});

test('kf kfold --help prints its usage and options', async () => {
  const r = await kf(['kfold', '--help']);
  assert.equal(r.code, 0, r.err);
  const text = r.out + r.err;
  assert.match(text, /Usage: kf kfold/);
  for (const flag of ['--bench', '--folds', '--objective', '--grid']) assert.ok(text.includes(flag), `usage names ${flag}`);
});

test("kf <group> --help lists the group's subcommands and exits 0", async () => {
  for (const [group, sub] of [
    ['eval', 'eval retrieval'],
    ['prompts', 'prompts import'],
  ]) {
    const r = await kf([group, '--help']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`kf ${sub}\\s+\\S`), `kf ${group} --help names ${sub} with its summary`);
  }
});

test('a misspelled flag of a workflow command gets a did-you-mean, not a stack trace', async () => {
  const r = await kf(['kfold', '--fold', '3']);
  assert.notEqual(r.code, 0);
  assert.match(r.err, /did you mean --folds\?/);
  assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
  const t = await kf(['train', 'gnn', '--bench', '2wiki', '--index', 'x', '--fold-epoch', '3']);
  assert.notEqual(t.code, 0);
  assert.match(t.err, /did you mean --fold-epochs\?/);
});
