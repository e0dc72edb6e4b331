import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSettings, configuration } from '../../lib/pipeline/registry';
import { serialisePaths } from '../../lib/dualg/pipeline';
import { searcherSettings } from '../../lib/dualg/query/searcher-settings';

test('dualg family: rows for the method, its ablations and the scorer comparisons; settings validated', () => {
  for (const name of ['DG', 'DG-nopaths', 'DG-nomicro', 'DG-nomacro', 'DG-heuristic', 'DG-ppr']) assert.ok(configuration(name), name);
  const ok = checkSettings('DG', { settings: { topk: 5 } });
  assert.equal(ok.ok, true);
  const bad = checkSettings('DG', { settings: { retriever: 'nope' } });
  assert.equal(bad.ok, false);
});

test('paths are serialised step by step with their sources', () => {
  const text = serialisePaths(
    [
      {
        score: 1,
        docs: ['A', 'B'],
        steps: [
          { from: 'X', relation: 'mentions', to: 'Y', source: { docId: 'A' } },
          { from: 'Y', relation: 'titles', to: 'B', source: { docId: 'B' } },
        ],
      },
    ],
    5,
  );
  assert.match(text, /1\. X -mentions-> Y \[A\]; Y -titles-> B \[B\]/);
  assert.equal(serialisePaths([], 5), '');
});

test('retriever settings: unknown or ill-typed keys are refused with the key named', () => {
  assert.equal(searcherSettings({ micro: false }, 'heuristic').micro, false);
  assert.throws(() => searcherSettings({ micro: 'no' }, 'heuristic'), /micro must be true or false/);
  assert.throws(() => searcherSettings({ heuristic: { brige: 1 } }, 'heuristic'), /heuristic\.brige/);
});
