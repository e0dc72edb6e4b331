/**
 * The pool in the released runner's block layout (setting blockFormat) with the
 * own pack's wording: material blocks with their neighbour and attached-figure
 * lines, a search's figures under one header, examples under theirs; the caps
 * count the blocks as written; block numbers and citations read back from
 * either layout (judge drops, the offline judge, kf ask). The knowforge-bench
 * pack's wording is checked over HTTP in prompt-pack.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FragmentKind } from '../../lib/corpus/types';
import type { SearchHit } from '../../lib/index/types';
import { citedFragments } from '../../lib/cli/ask-output';
import { agentSettings, blockFormatOf } from '../../lib/knowforge/agent-settings';
import { citedNumbers, numberedBlocks } from '../../lib/answer/block-format';
import { offTopicBlocks } from '../../lib/knowforge/offline/judge-drop';
import { oneShotSettings } from '../../lib/knowforge/one-shot';
import { buildPool, PAPER_CAPS, type PoolSearch } from '../../lib/answer/pool';
import { synthTask } from '../../lib/answer/synthesizer';
import type { TraceEvent } from '../../lib/pipeline/types';

function hit(id: string, kind: FragmentKind, score: number, rank: number, text: string, extra: Partial<SearchHit> = {}): SearchHit {
  return {
    fragmentId: id,
    docId: id.split('#')[0],
    kind,
    rank,
    score,
    scores: { dense: score },
    via: 'hybrid',
    text,
    section: [],
    page: 2,
    media: [],
    ...extra,
  };
}

const searches: PoolSearch[] = [
  {
    query: 'harbour cranes',
    by: 'locator',
    hits: [
      hit('port#0', 'text', 0.9, 1, 'The harbour  has four\ncranes.', {
        section: ['Port of Vell', 'Equipment'],
        context: { prev: 'Built in 1901.', next: 'Two were replaced.' },
        media: [{ fragmentId: 'port#1', kind: 'image', caption: 'Crane photo' }],
      }),
      hit('port#2', 'table', 0.8, 2, 'Table 2: crane loads', { media: [{ fragmentId: 'port#2', kind: 'table', caption: 'Crane loads' }] }),
      hit('port#3', 'image', 0.7, 3, 'A map of the docks'),
      hit('port#4', 'example', 0.6, 4, 'Example: 4 cranes x 30 t = 120 t'),
      hit('town#0', 'text', 0.5, 5, 'The town hall has a clock.', { via: 'expansion', anchorId: 'port#0' }),
    ],
  },
];
const title = (d: string) => ({ port: 'Port of Vell', town: 'Vell Town' })[d];

test('runner layout in our words: material block with neighbours and its figure, figures and examples under their headers', () => {
  const pool = buildPool(searches, { format: 'runner', docTitle: title });
  assert.equal(pool.format, 'runner');
  assert.equal(
    pool.text,
    [
      '<Material 1> cite as [1] (Equipment): The harbour has four cranes.\n' +
        '  · neighbouring passage: Built in 1901.\n' +
        '  · neighbouring passage: Two were replaced.\n' +
        '  · figure to show [fig 2] (p. 2) (whole description: fragment_context port#1): Crane photo',
      '<Figures and tables> (on the topic of the question; the captions are cut, so when the answer may sit inside a figure or table, read its whole description with fragment_context first):\n' +
        '  · matching figure [fig 3] (p. 2) (whole description: fragment_context port#2): Crane loads\n' +
        '  · matching figure [fig 4] (p. 2) (whole description: fragment_context port#3): A map of the docks',
      '<Examples>:\n  · Example: 4 cranes x 30 t = 120 t',
      '<Material 6> cite as [6] (Vell Town - graph neighbour): The town hall has a clock.',
    ].join('\n\n'),
  );
  // The numbers are the pool's: every block but the example (unnumbered, as the runner writes examples) reads back.
  assert.deepEqual(
    numberedBlocks(pool.text).map((b) => b.n),
    [1, 2, 3, 4, 6],
  );
  assert.deepEqual(
    [...pool.numberOf].map(([id, n]) => `${n}:${id}`),
    ['1:port#0', '2:port#1', '3:port#2', '4:port#3', '5:port#4', '6:town#0'],
  );
  // The offline synthesizer cites media as the layout writes them.
  const task = synthTask({ question: { id: 'q', question: 'q?' } as never, convention: 'm3docvqa', template: 'ours', pool });
  assert.deepEqual(
    task.materials.map((m) => m.n),
    [1, '[fig 2]', '[fig 3]', '[fig 4]', 5, 6],
  );
});

test('the caps count blocks as the runner layout writes them; the harness layout is unchanged', () => {
  const long = Array.from({ length: 12 }, (_, i) => hit(`d#${i}`, 'text', 1 - i / 100, i + 1, `passage ${i} `.repeat(60)));
  const caps = { ...PAPER_CAPS, total: 5_000, text: 4_000 };
  const runner = buildPool([{ query: 'q', by: 'locator', hits: long }], { format: 'runner', caps });
  const harness = buildPool([{ query: 'q', by: 'locator', hits: long }], { caps });
  assert.ok(runner.stats.trimmed && harness.stats.trimmed);
  assert.ok(runner.blocks.reduce((s, b) => s + b.cost, 0) <= 4_000, 'text within its cap');
  assert.equal(runner.blocks.length, Math.floor(4_000 / runner.blocks[0].cost), 'as many written blocks as fit the cap');
  // The runner layout keeps first-appearance numbers: a later search adds blocks without renumbering the kept ones.
  const later = buildPool(
    [
      { query: 'q', by: 'locator', hits: long },
      { query: 'q2', by: 'bridge', hits: [hit('e#0', 'text', 2, 1, 'extra passage')] },
    ],
    { format: 'runner', caps },
  );
  for (const b of runner.blocks) assert.equal(later.numberOf.get(b.fragmentId) ?? runner.numberOf.get(b.fragmentId), runner.numberOf.get(b.fragmentId));
  assert.equal(later.numberOf.get('e#0'), 13, 'numbered after the 12 blocks the first search offered');
  assert.ok(later.text.includes('<Material 13> cite as [13]'));
  assert.ok(
    runner.blocks.every((b) => b.body.startsWith('<Material 0> cite as [0]')),
    'cost measured on the written block',
  );
  assert.match(harness.text, /^\[1\] \(text · d · p\.2 · id=d#0\)/);
  assert.equal(harness.format, 'harness');
});

test('citations and block numbers read back from either layout, with any short media name', () => {
  assert.deepEqual(citedNumbers('A [1], B [fig 2], C [pic#3], D [图4], not [x]'), [
    { n: 1, media: false },
    { n: 2, media: true },
    { n: 3, media: true },
    { n: 4, media: true },
  ]);
  const runnerText = '【M1】 [1]（src）：harbour cranes\n  · nb: more\n  · fig [图2]（p）：photo\n\n【H】：\n  · fig [图3]：loads';
  assert.deepEqual(
    numberedBlocks(runnerText).map((b) => [b.n, b.text.split('\n').length]),
    [
      [1, 2],
      [2, 1],
      [3, 1],
    ],
  );
  assert.deepEqual(
    numberedBlocks('[1] (text · a) cranes\n  before: x\n\n[fig 2] image · p.1\ncaption: y').map((b) => b.n),
    [1, 2],
  );
  // The offline judge's drop rule finds the blocks of either layout.
  assert.deepEqual(offTopicBlocks('How many harbour cranes?', runnerText), [2, 3]);
  // kf ask resolves a pack's media mark through the pool event's block list.
  const events = [{ kind: 'pool', blocks: [{ n: 2, id: 'port#1', kind: 'image' }] }] as unknown as TraceEvent[];
  assert.deepEqual(citedFragments('See [图2].', events), ['[图2] port#1 (image)']);
});

test('blockFormat: runner by default with the knowforge-bench pack, harness with the own pack unless set', () => {
  assert.equal(blockFormatOf(agentSettings.parse({})), 'harness');
  assert.equal(blockFormatOf(agentSettings.parse({ blockFormat: 'runner' })), 'runner');
  assert.equal(blockFormatOf({ prompts: 'knowforge-bench', blockFormat: undefined }), 'runner');
  assert.equal(blockFormatOf({ prompts: 'knowforge-bench', blockFormat: 'harness' }), 'harness');
  assert.equal(agentSettings.safeParse({ blockFormat: 'paper' }).success, false);
  assert.equal(blockFormatOf(oneShotSettings.parse({ blockFormat: 'runner' })), 'runner', 'S4 writes its pool the same way');
  assert.equal(blockFormatOf(oneShotSettings.parse({})), 'harness');
});
