/**
 * Prompt packs end to end: `kf prompts import knowforge-bench` on a fixture
 * checkout in the runner's file format (our own strings,
 * test/__fixtures__/knowforge-bench), then an M5 run over REAL HTTP (scripted
 * server) that must send the pack's texts, request by request: Locator system
 * prompt, the Locator suffix after each tool result, the round-budget note, the
 * judge, the reader's suffix, the vision prompt, the synthesizer and the checker.
 * A pack that was never imported fails when the settings load, naming the
 * import command.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentPipeline } from '../../lib/knowforge/agent-pipeline';
import { agentSettings } from '../../lib/knowforge/agent-settings';
import { importKnowforgeBench } from '../../lib/knowforge/prompt-pack/knowforge-bench';
import { runnerListingHits } from '../../lib/knowforge/offline/runner-listing';
import { clearResolvedPacks, readPackManifest, resolvePromptPack } from '../../lib/knowforge/prompt-pack/packs';
import { pythonStringConstants } from '../../lib/knowforge/prompt-pack/python-strings';
import { runnerBlockTemplates } from '../../lib/knowforge/prompt-pack/runner-blocks';
import { runnerResultTemplates } from '../../lib/knowforge/prompt-pack/runner-results';
import { ScriptedServer, type RecordedRequest } from '../../lib/models/testing/scripted-server';
import { sha256 } from '../../lib/util/hash';
import { withPromptPack } from '../../lib/util/prompts';
import { repoRoot } from '../../lib/util/paths';
import { routerFor } from '../models/helpers';
import { ownScratch } from '../_shared/scratch';
import { agentContext } from './agent-context.helper';

const FIXTURE = path.join(repoRoot(), 'test', '__fixtures__', 'knowforge-bench');
const STAGES = { locator: 'loc', reader: 'rdr', bridge: 'jdg', vision: 'vis', synth: 'syn', checker: 'chk' } as const;
const call = (tool: string, args: Record<string, unknown>) => ({ text: JSON.stringify({ thought: 'step', tool, args }) });
const fin = { text: JSON.stringify({ thought: 'done', final: 'ok' }) };

/** Run `fn` with a fresh state folder (where packs are imported), restored afterwards. */
async function inFreshState(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = ownScratch('kf-pack-');
  const before = process.env.KF_STATE_DIR;
  process.env.KF_STATE_DIR = dir;
  clearResolvedPacks();
  try {
    await fn(dir);
  } finally {
    if (before === undefined) delete process.env.KF_STATE_DIR;
    else process.env.KF_STATE_DIR = before;
    clearResolvedPacks();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const byModel = (server: ScriptedServer, model: string): RecordedRequest[] => server.requests.filter((r) => r.kind === 'chat' && r.model === model);
const lastUser = (r: RecordedRequest): string => {
  const users = (r.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user');
  const c = users[users.length - 1].content;
  return typeof c === 'string' ? c : JSON.stringify(c);
};

test('python reader: constants built from others with + and .rstrip(), adjacent literals, escapes; dicts and calls skipped', () => {
  const c = pythonStringConstants(
    ['A = """x\n"""', "B = A.rstrip() + '\\n' + (\"y\"\n     'z')", 'D = {"k": A}', 'E = len(A)', "F = r'\\n'  # raw"].join('\n'),
  );
  assert.equal(c.get('A'), 'x\n');
  assert.equal(c.get('B'), 'x\nyz');
  assert.equal(c.has('D'), false);
  assert.equal(c.has('E'), false);
  assert.equal(c.get('F'), '\\n');
});

test('kf prompts import knowforge-bench: templates, manifest with source sha256, constant and role per template', async () => {
  await inFreshState(async (dir) => {
    const m = importKnowforgeBench(FIXTURE, { now: new Date('2026-01-01T00:00:00Z') });
    assert.equal(m.name, 'knowforge-bench');
    const src = fs.readFileSync(path.join(FIXTURE, 'kfbench', 'prompts.py'));
    assert.deepEqual(m.sources[0], { file: 'kfbench/prompts.py', sha256: sha256(src) });
    const loc = m.templates.find((t) => t.template === 'locator-role');
    assert.equal(loc?.from, 'LOC_RULES_V43', 'the later runner version wins over LOC_RULES');
    const packDir = path.join(dir, 'prompt-packs', 'knowforge-bench');
    assert.equal(
      fs.readFileSync(path.join(packDir, 'locator-role.txt'), 'utf8'),
      '[fixture locator rules] Find the passage that holds the answer; do not read deeply.\n- [fixture locator addition] Count questions use list_media.\n',
    );
    assert.match(fs.readFileSync(path.join(packDir, 'read-media.txt'), 'utf8'), /Question: \{\{question\}\}/);
    assert.match(fs.readFileSync(path.join(packDir, 'feedback-budget.txt'), 'utf8'), /\{\{left\}\} round\(s\) left/);
    assert.ok(m.fromOwn.includes('read-table') && m.fromOwn.includes('synth-user'), 'what the pack lacks is declared as coming from prompts/');
    assert.ok(m.templates.every((t) => t.role && t.source && t.sha256.length === 64));
    // The pool's block formats, from materials.py's f-strings (fields become placeholders) and literals.
    const block = (t: string) => m.templates.find((x) => x.template === t);
    assert.equal(block('block-material')?.source, 'kfbench/materials.py');
    assert.match(block('block-material')?.role ?? '', /numbered text block/);
    assert.match(block('block-material')?.from ?? '', /^f-string with fields cid, cid, label/);
    const text = (t: string) => fs.readFileSync(path.join(packDir, `${t}.txt`), 'utf8');
    assert.equal(text('block-material'), '[fixture material {{n}}] cite [{{n}}] from <{{source}}{{tag}}>: {{text}}\n');
    assert.equal(text('block-media-attached'), '  - fixture attached [{{name}}]{{page}}{{idNote}}; {{caption}}\n', 'leading spaces kept');
    assert.equal(text('block-media-name'), 'pic#{{n}}\n');
    assert.equal(text('block-page'), '{pg {{page}}}\n', 'escaped braces of the f-string decoded');
    assert.equal(text('block-media-header'), '[fixture figures] captions are cut, read the whole description first:\n', 'adjacent literals joined');
    assert.equal(text('block-no-caption'), '[fixture no caption]\n');
    assert.equal(text('search-nothing-new'), '[fixture no new materials]\n', 'the note of a search that lists nothing new');
    assert.equal(text('fragment-context-header'), '[fixture fragment context] the arrow marks the hit, cite the old [N]:\n');
    // read_media's result layout, from the same module's materializer.
    assert.equal(text('read-media-answer'), '  - fixture seen [{{name}}] <{{kind}}> {{answer}}\n');
    assert.equal(text('read-media-error'), '  - fixture unreadable {{id}}: {{error}}\n');
    assert.equal(text('read-media-skipped'), '  - fixture over the cap: {{ids}}\n');
    assert.equal(text('read-media-header'), '[fixture media read] trust the look, cite the bracketed name:\n');
    assert.equal(text('read-media-empty'), '[fixture nothing was read]\n');
    assert.equal(text('list-media-item'), '* {{page}}{{boundary}}{{kind}} {{id}} = {{desc}}\n');
    assert.equal(text('list-media-head-end'), ' ::\n');
    assert.equal(text('list-tables-line'), '* {{name}} #{{id}} rows={{rows}} cols={{columns}}\n');
    assert.equal(text('list-tables-column-sep'), ',\n', 'the separator written inside the field expression');
    assert.equal(text('query-table-group'), '  [fixture rows of {{name}} for {{item}}: {{matched}}{{more}}]\n');
    assert.equal(text('table-cell'), '{{column}}={{value}}\n');
    assert.equal(text('get-table-row'), '  > \n', 'the row mark of get_table, not the one of query_table');
    assert.equal(text('find-figure-head'), '[fixture where {{label}} sits in {{book}}]\n');
    assert.equal(text('find-figure-media'), '  > pg{{page}} {{kind}} {{id}} = {{desc}}\n', 'not the list_media item line');
    assert.equal(text('find-figure-none-hint'), ' [fixture browse with list_media or search the topic]\n', 'the continuing f-string, leading space kept');
    assert.equal(text('media-context-error'), '[fixture media_context refused: {{error}}]\n', 'the third error-code-alone f-string of the module');
    assert.equal(text('media-context-sibling'), '{{kind}} {{id}} = {{desc}}\n');
    assert.equal(text('media-context-footer'), '[fixture values need read_media first]\n');
    assert.equal(text('list-books-head'), '[fixture library of {{total}}\n');
    assert.equal(text('book-toc-indent'), '. \n', 'the indent unit, its trailing space kept in the file');
    assert.equal(text('book-toc-missing-hint'), '[fixture no such book, see list_books]\n');
    assert.ok(
      !m.fromOwn.some((t) => /^(read-media|list-media|list-tables|query-table|get-table|table|find-figure|media-context|list-books|book-toc)-/.test(t)),
      'every read_media and list_media format comes from the checkout',
    );
    assert.ok(!m.fromOwn.some((t) => t.startsWith('block-')), 'every block format comes from the checkout');
    assert.equal(readPackManifest('knowforge-bench').sha256, m.sha256);
  });
});

test('block formats: a materials.py whose builder lacks one fails the import naming it; a field it cannot place too', () => {
  const src = fs.readFileSync(path.join(FIXTURE, 'kfbench', 'materials.py'), 'utf8');
  assert.equal(runnerBlockTemplates(src).size, 12);
  assert.throws(
    () => runnerBlockTemplates(src.replace(/\s*ex_lines = \[.*\n/, '\n')),
    (e: Error) => /block formats block-example were not found/.test(e.message),
  );
  assert.throws(
    () => runnerBlockTemplates(src.replace('{seg}"', '{seg}{seg.upper()}"').replace('{cid}] from', '{cid}] {len(hit)} from')),
    (e: Error) => /block-material has a field \{len\(hit\)\} the importer cannot place/.test(e.message),
  );
});

test('tool-result formats: a materials.py lacking one fails the import naming it', () => {
  const src = fs.readFileSync(path.join(FIXTURE, 'kfbench', 'materials.py'), 'utf8');
  assert.equal(runnerResultTemplates(src).size, 54);
  assert.throws(
    () => runnerResultTemplates(src.replace(/\s*if data\.get\("skipped"\):\n.*\n/, '\n')),
    (e: Error) => /tool-result formats read-media-skipped, read-media-empty were not found/.test(e.message),
  );
  assert.throws(
    () => runnerResultTemplates(src.replace("{str(r.get('answer'))}", "{str(r.get('answer'))}{len(r)}")),
    (e: Error) => /read-media-answer has a field \{len\(r\)\} the importer cannot place/.test(e.message),
  );
});

test('a pack that was not imported fails when the settings load, naming the import command', async () => {
  await inFreshState(async () => {
    const r = agentSettings.safeParse({ prompts: 'knowforge-bench' });
    assert.equal(r.success, false);
    assert.match(JSON.stringify(r.error?.issues), /kf prompts import knowforge-bench <checkout-dir>/);
    const bad = agentSettings.safeParse({ prompts: 'knowforge-bnech' });
    assert.match(JSON.stringify(bad.error?.issues), /did you mean \\"knowforge-bench\\"/);
  });
});

test('M5 with the knowforge-bench pack sends the pack texts, request by request, over HTTP', async () => {
  await inFreshState(async () => {
    const manifest = importKnowforgeBench(FIXTURE);
    const server = await ScriptedServer.start();
    server.on({ model: 'loc', reply: [call('search_knowledge', { query: 'Alpha Quest director' }), call('list_tables', {}), fin] });
    server.on({ model: 'jdg', reply: { text: '{"need_more": true, "bridge_entities": ["Bob Stone"], "queries": ["Bob Stone"], "reason": "hop 2"}' } });
    server.on({
      model: 'rdr',
      reply: [call('list_media', { book: 'Alpha Quest' }), call('read_media', { fragment_ids: ['alpha#1'], question: 'box office in 1951?' }), fin],
    });
    server.on({ model: 'vis', reply: { text: 'Where: row 2.\nAnswer: 30' } });
    server.on({ model: 'syn', reply: { text: 'Bob Stone was born in Paris [1].\nFINAL ANSWER: Paris' } });
    server.on({ model: 'chk', reply: { text: '{"final": "Paris"}' } });
    const router = routerFor(server, { stages: Object.fromEntries(Object.entries(STAGES).map(([s, model]) => [s, { model }])) });
    const { ctx, events } = agentContext(
      router,
      { benchmark: 'm3docvqa', question: 'Where was the director of Alpha Quest born?', answer: 'Paris' },
      'm3docvqa',
    );
    try {
      const pipeline = agentPipeline('M5', '', agentSettings.parse({ prompts: 'knowforge-bench', locatorRounds: 3 }));
      assert.deepEqual(pipeline.promptPack, { name: 'knowforge-bench', sha256: manifest.sha256 });
      const result = await pipeline.run(ctx);
      assert.equal(result.finalAnswer, 'Paris');

      const loc = byModel(server, 'loc');
      assert.equal(loc.length, 3);
      const system = loc[0].body.messages[0].content as string;
      for (const s of ['[fixture loop rules]', '[fixture locator rules]', '[fixture locator addition]', '[fixture m3d rule]'])
        assert.ok(system.includes(s), `Locator system prompt has ${s}`);
      // After each tool result: the runner's header, the search listed in the pack's material blocks (blockFormat
      // runner: the numbers are the ones the pool keeps), the Locator suffix, and the budget note once <= 2 rounds remain.
      // The pool in the pack's block formats: a material block with its attached figure inside, the search's own
      // figures under the group header, the next material. The Locator's one search listed all of it.
      const pool =
        '[fixture material 1] cite [1] from <Alpha Quest>: Alpha Quest is a 1950 film directed by Bob Stone. It was shot in Lisbon.\n' +
        '  - fixture attached [pic#2]{pg 1} (fixture id alpha#1); Box office of Alpha Quest\n\n' +
        '[fixture figures] captions are cut, read the whole description first:\n' +
        '  - fixture figure [pic#3]{pg 1} (fixture id alpha#2); Table 1: cast of Alpha Quest\n\n' +
        '[fixture material 4] cite [4] from <Bob Stone>: Bob Stone was a film director born in Paris in 1910.';
      assert.equal(
        lastUser(loc[1]),
        `[fixture result]\n${pool}\n\n[fixture locator suffix: stop once the answer passage is found] [no deep reading here]\n\n[fixture budget note: 2 round(s) left]`,
      );
      // The offline Locator reads the same lines back through the pack's templates (what a model is shown, nothing else).
      const read = withPromptPack(resolvePromptPack('knowforge-bench'), () => runnerListingHits(lastUser(loc[1])));
      assert.deepEqual(
        read.map((h) => [h.doc, h.id, h.kind]),
        [
          ['Alpha Quest', undefined, 'text'],
          ['', 'alpha#1', 'image'],
          ['', 'alpha#2', 'image'],
          ['Bob Stone', undefined, 'text'],
        ],
      );
      // list_tables in the pack's layout: its header and one line per table.
      assert.ok(lastUser(loc[2]).startsWith('[fixture result]\n[fixture tables you can query]\n* Table 1 #alpha#2 rows=2 cols=Actor,Role\n'), lastUser(loc[2]));
      assert.match(lastUser(loc[2]), /\[fixture locator suffix[^\]]*\] \[no deep reading here\]\n\n\[fixture budget note: 1 round\(s\) left\]$/);

      const [jdg] = byModel(server, 'jdg');
      assert.match(jdg.body.messages[0].content, /^\[fixture judge system\]/);
      assert.match(
        jdg.body.messages[1].content,
        /^Question: Where was the director of Alpha Quest born\?\n\nQueries already searched: \["Alpha Quest director"\]\n\nCollected materials/,
      );

      const rdr = byModel(server, 'rdr');
      assert.match(rdr[0].body.messages[0].content, /\[fixture reader rules\][\s\S]*\[fixture reader addition\]/);
      // The read_media result in the pack's layout: its header, the asset under the name the pool cites it by.
      // list_media in the pack's layout: the book's head with its counts, one line per figure or table, the closing hint.
      assert.ok(
        lastUser(rdr[1]).startsWith(
          '[fixture result]\n[fixture media of Alpha Quest] pics=1 tabs=1 ::\n* pg1 PIC alpha#1 = Box office of Alpha Quest\n' +
            '* pg1 TAB alpha#2 = Table 1: cast of Alpha Quest\n[fixture media hint] open one with read_media, count the rest with one read_media call\n',
        ),
        lastUser(rdr[1]),
      );
      assert.ok(
        lastUser(rdr[2]).startsWith(
          '[fixture result]\n[fixture media read] trust the look, cite the bracketed name:\n  - fixture seen [pic#2] <image> Where: row 2. Answer: 30\n',
        ),
        lastUser(rdr[2]),
      );
      assert.match(
        lastUser(rdr[1]),
        /\[fixture general suffix: finish with \{"thought": "\.\.\.", "final": "ok"\} once the materials suffice\]\n\[fixture budget rule: rounds are a budget, read or finish\]/,
      );

      const [vis] = byModel(server, 'vis');
      assert.match(lastUser(vis), /\[fixture read prompt\] Look at this one image only\.\nQuestion: box office in 1951\?/);

      const [syn] = byModel(server, 'syn');
      assert.equal(syn.body.messages[0].content, '[fixture synth system] Answer from the materials, cite [N].');
      // The same blocks reach the synthesizer (blockFormat defaults to runner with this pack).
      assert.ok(syn.body.messages[1].content.includes(pool), `synthesizer materials in the pack's blocks:\n${syn.body.messages[1].content}`);
      assert.ok(jdg.body.messages[1].content.includes(pool), 'the judge sees the same blocks');
      assert.ok(lastUser(rdr[0]).includes(pool), 'so does the Deep Reader');
      const poolEvent = events.filter((e) => e.kind === 'pool').pop() as unknown as { blocks: { n: number; id: string }[] };
      assert.deepEqual(
        poolEvent.blocks.map((b) => [b.n, b.id]),
        [
          [1, 'alpha#0'],
          [2, 'alpha#1'],
          [3, 'alpha#2'],
          [4, 'bob#0'],
        ],
        'the numbers in the blocks are the pool numbers the citations resolve through',
      );
      assert.match(syn.body.messages[1].content, /\[fixture m3d guardrail\] End with 'FINAL ANSWER: <answer>'; never refuse\./);

      const [chk] = byModel(server, 'chk');
      assert.match(chk.body.messages[0].content, /^\[fixture checker m3d\]/);
      assert.match(chk.body.messages[1].content, /^Question: Where was the director of Alpha Quest born\?\n\nAnswer text:\n[\s\S]*\n\nJSON:$/);

      const stamp = events.find((e) => e.kind === 'prompt-pack');
      assert.deepEqual(stamp, { kind: 'prompt-pack', name: 'knowforge-bench', sha256: manifest.sha256 });
    } finally {
      await router.close();
      await server.close();
    }
  });
});
