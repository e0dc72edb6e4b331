/**
 * search_knowledge in the runner's layout (blockFormat = runner), in the own pack's words: the hits as
 * material blocks numbered as the pool numbers them, a fragment listed once per loop (a later search
 * that adds nothing gets the "nothing new" note), the weak-relevance note first under the gate; and the
 * offline Locator reads the listing back as the same hits the harness's JSON listing names. The Deep
 * Reader's fragment_context, read_media and list_media, and the table tools, in the same layout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { locatorReply, searchResultsSoFar } from '../../lib/knowforge/offline/locator';
import { runnerListingHits } from '../../lib/knowforge/offline/runner-listing';
import { newToolContext } from '../../lib/knowforge/tools/context';
import { fragmentContext, mediaContext, readMedia } from '../../lib/knowforge/tools/reader-tools';
import { renderHits, runSearch, searchResult } from '../../lib/knowforge/tools/search';
import { findFigure, listMedia } from '../../lib/knowforge/tools/shared-tools';
import { bookToc, getTable, listBooks, listTables, queryTable } from '../../lib/knowforge/tools/locator-tools';
import { runnerTableListing } from '../../lib/knowforge/tools/table-listing';
import { runnerMediaListing } from '../../lib/knowforge/tools/media-listing';
import type { ChatRequest } from '../../lib/model-api/types';
import { fillPrompt, loadPrompt } from '../../lib/util/prompts';
import { mediaName } from '../../lib/answer/block-format';
import { toyKb } from './toy-kb';

test('runner listing: material blocks with the pool numbers, each fragment once, nothing-new and weak notes', async () => {
  const ctx = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'locator', blockFormat: 'runner' });
  const first = searchResult(ctx, await runSearch(ctx, 'Alpha Quest director', 8, 'locator'));
  assert.equal(typeof first, 'string');
  assert.match(String(first), /^<Material 1> cite as \[1\] \(Alpha Quest\): Alpha Quest is a 1950 film directed by Bob Stone\./);
  assert.match(String(first), /\n {2}· figure to show \[fig 2\] \(p\. 1\) \(whole description: fragment_context alpha#1\): Box office of Alpha Quest/);
  assert.equal(ctx.listed.get('alpha#0'), 1);
  assert.equal(searchResult(ctx, await runSearch(ctx, 'Alpha Quest director', 8, 'locator')), loadPrompt('search-nothing-new').trim());
  const gated = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'locator', blockFormat: 'runner', weakRelevanceGate: 1e9 });
  const weak = String(searchResult(gated, await runSearch(gated, 'Alpha Quest director', 8, 'locator')));
  assert.ok(weak.startsWith(`${loadPrompt('weak-relevance').trim()}\n<Material 1>`), weak);
  const harness = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'locator' });
  assert.equal(typeof searchResult(harness, await runSearch(harness, 'Alpha Quest director', 8, 'locator')), 'object', 'the harness listing stays JSON');
});

test('the offline Locator reads the runner listing back: the text hits the JSON listing names, figures by id', async () => {
  const runner = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'locator', blockFormat: 'runner' });
  const harness = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'locator' });
  const listing = String(searchResult(runner, await runSearch(runner, 'Bob Stone born', 8, 'locator')));
  const json = renderHits(harness, await runSearch(harness, 'Bob Stone born', 8, 'locator')) as { hits: { doc: string; kind: string; text: string }[] };
  const read = runnerListingHits(listing);
  const textOnly = (hs: { doc: string; kind?: string; text: string }[]) => hs.filter((h) => h.kind === 'text').map((h) => [h.doc, h.text]);
  assert.ok(read.length > 0);
  assert.deepEqual(textOnly(read), textOnly(json.hits), 'same documents and previews for the text hits');
  const req = (content: string): ChatRequest =>
    ({
      messages: [
        { role: 'user', content: 'Where was Bob Stone born?' },
        { role: 'tool', content },
      ],
    }) as ChatRequest;
  assert.deepEqual(searchResultsSoFar(req(listing)), read, 'the policy finds them in a tool message');
  assert.deepEqual(searchResultsSoFar(req(JSON.stringify({ query: 'x', hits: [] }))), [], 'a JSON listing is still read as JSON');
  assert.ok(locatorReply(req(listing), { question: 'Where was Bob Stone born?' } as never));
});

test('fragment_context in the runner layout: the pack header, the fragment arrowed among its neighbours in document order', async () => {
  const ctx = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'reader', blockFormat: 'runner' });
  const out = await fragmentContext.handler({ fragment_id: 'alpha#1', window: 1 }, { context: ctx } as never);
  const lines = String(out).split('\n');
  assert.equal(lines[0], loadPrompt('fragment-context-header').trim());
  assert.deepEqual(
    lines.slice(1).map((l) => l.slice(0, 2)),
    ['  ', '→ ', '  '],
    'neighbour, the fragment asked for, neighbour',
  );
  assert.match(lines[1], /^ {2}Alpha Quest is a 1950 film/);
  assert.equal(ctx.reads.length, 1, 'the reading note is logged as before');
  const harness = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'reader' });
  assert.equal(((await fragmentContext.handler({ fragment_id: 'alpha#1' }, { context: harness } as never)) as { id: string }).id, 'alpha#1');
});

test('read_media in the runner layout: the pack header, one line per id (pool name, kind, answer; or the error), the ids over the cap', async () => {
  const ctx = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'reader', blockFormat: 'runner', readMediaMax: 2, poolNumbers: new Map([['alpha#1', 2]]) });
  const call = (ids: string[]) => readMedia.handler({ fragment_ids: ids, question: 'what year?' }, { context: ctx } as never);
  const lines = String(await call(['alpha#1', 'nope#9', 'alpha#2'])).split('\n');
  assert.equal(lines[0], loadPrompt('read-media-header').trim());
  assert.ok(
    lines[1].startsWith(fillPrompt('read-media-answer', { name: mediaName(2), kind: 'image', answer: 'Where: the stored description. Answer: ' })),
    lines[1],
  );
  assert.match(lines[1], /^ {2}· \[fig 2\] \(image\) seen: Where: the stored description\. Answer: Figure 1/, 'the name the pool cites the asset by');
  assert.match(lines[2], /^ {2}· nope#9: no fragment nope#9/, 'an unknown id: its error line');
  assert.equal(lines[3], fillPrompt('read-media-skipped', { ids: 'alpha#2' }), 'over the cap of 2');
  assert.equal(ctx.reads.length, 1, 'the reading note is logged as before');
  assert.equal(String(await call([])), loadPrompt('read-media-empty').trim());
  const unlisted = String(await readMedia.handler({ fragment_ids: ['alpha#2'], question: 'who?' }, { context: ctx } as never));
  assert.match(unlisted, /\[alpha#2\] \(table\)/, 'an asset the pool never numbered goes by its id');
  const harness = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'reader' });
  const json = (await readMedia.handler({ fragment_ids: ['alpha#1'], question: 'x' }, { context: harness } as never)) as { answers: { id: string }[] };
  assert.equal(json.answers[0].id, 'alpha#1', 'the harness layout is the JSON result as before');
});

test('list_media in the runner layout: a head per book with its counts, a line per figure or table, one closing hint; the harness JSON unchanged', async () => {
  const ctx = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'reader', blockFormat: 'runner' });
  const list = async (args: Record<string, unknown>) => String(await listMedia.handler(args, { context: ctx } as never));
  const lines = (await list({ book: 'Alpha Quest', page: 1 })).split('\n');
  assert.equal(lines[0], `${fillPrompt('list-media-head', { book: 'Alpha Quest', images: '1', tables: '1' })}${fillPrompt('list-media-page', { page: '1' })}:`);
  assert.equal(lines[1], `- p.1 figure alpha#1: Box office of Alpha Quest`);
  assert.match(lines[2], /^- p\.1 table alpha#2: Table 1/);
  assert.equal(lines.at(-1), loadPrompt('list-media-footer'));
  assert.equal(runnerMediaListing(ctx, [], {}), fillPrompt('list-media-missing', { error: 'no_match' }), 'nothing listed: the not-found note');
  const all = await list({});
  assert.equal(
    all.split('\n').filter((l) => l.startsWith('<Figures and tables of ')).length,
    new Set(
      toyKb()
        .media({})
        .map((m) => m.docId),
    ).size,
    'one head per book listed',
  );
  const harness = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'reader' });
  const json = (await listMedia.handler({ book: 'Alpha Quest' }, { context: harness } as never)) as { media: { id: string }[] };
  assert.deepEqual(
    json.media.map((m) => m.id),
    ['alpha#1', 'alpha#2'],
  );
});

test('list_tables in the runner layout: the pack header, one line per table with its columns; the empty note', async () => {
  const kb = toyKb();
  const ctx = newToolContext(kb, { mode: 'hybrid', searchBy: 'locator', blockFormat: 'runner' });
  const lines = String(await listTables.handler({}, { context: ctx } as never)).split('\n');
  assert.equal(lines[0], loadPrompt('list-tables-header'));
  assert.equal(lines.length - 1, kb.tables().length);
  assert.ok(lines.includes(fillPrompt('list-tables-line', { name: 'Table 1', id: 'alpha#2', rows: '2', columns: 'Actor/Role' })), lines.join('\n'));
  assert.equal(runnerTableListing(kb, []), loadPrompt('list-tables-empty'));
  const harness = newToolContext(kb, { mode: 'hybrid', searchBy: 'locator' });
  assert.ok(Array.isArray(((await listTables.handler({}, { context: harness } as never)) as { tables: unknown[] }).tables), 'the harness JSON as before');
});

test('query_table and get_table in the runner layout: header, a head per table, one line per row of column/value cells; the harness JSON unchanged', async () => {
  // The toy knowledge base answers no row query: here a query returns the rows of its tables that hold the item.
  const toy = toyKb();
  const kb: typeof toy = {
    ...toy,
    queryTable: (item) =>
      toy.tables().flatMap((t) => {
        const data = toy.table(t.fragmentId)!;
        const rows = data.rows.filter((r) => r.some((v) => v.includes(item)));
        return rows.length ? [{ table: t, header: data.header, rows }] : [];
      }),
  };
  const ctx = newToolContext(kb, { mode: 'hybrid', searchBy: 'locator', blockFormat: 'runner' });
  const run = async (tool: typeof queryTable, args: Record<string, unknown>) => String(await tool.handler(args, { context: ctx } as never));
  const cell = (column: string, value: string) => fillPrompt('table-cell', { column, value });
  const q = (await run(queryTable, { item: 'Ann Lee' })).split('\n');
  assert.deepEqual(q, [
    loadPrompt('query-table-header'),
    fillPrompt('query-table-group', { name: 'Table 1', item: 'Ann Lee', matched: '1', more: '' }),
    `${loadPrompt('query-table-row')} ${[cell('Actor', 'Ann Lee'), cell('Role', 'Captain')].join(loadPrompt('table-cell-sep'))}`,
  ]);
  assert.equal(await run(queryTable, { item: 'zzqx' }), loadPrompt('query-table-empty'));
  const g = (await run(getTable, { table_id: 'alpha#2' })).split('\n');
  assert.equal(g[0], fillPrompt('get-table-head', { name: 'Table 1', rows: '2', more: '' }));
  assert.equal(g.length, 3, 'both rows');
  assert.ok(g[2].startsWith(`${loadPrompt('get-table-row')} ${cell('Actor', 'Tom Hart')}`), g[2]);
  const harness = newToolContext(kb, { mode: 'hybrid', searchBy: 'locator' });
  const json = (await queryTable.handler({ item: 'Ann Lee' }, { context: harness } as never)) as { matches: { table: string }[] };
  assert.equal(json.matches[0].table, 'alpha#2', 'the harness JSON as before');
});

test('find_figure in the runner layout: head with label and book, caption line, the figures of the page; the none note; the harness JSON unchanged', async () => {
  const ctx = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'locator', blockFormat: 'runner' });
  const run = async (args: Record<string, unknown>) => String(await findFigure.handler(args, { context: ctx } as never));
  assert.deepEqual((await run({ label: 'Figure 1', book: 'Alpha Quest' })).split('\n'), [
    fillPrompt('find-figure-head', { label: 'Figure 1', book: 'Alpha Quest' }),
    fillPrompt('find-figure-caption', { page: '1', line: 'Box office of Alpha Quest' }),
    fillPrompt('find-figure-media-intro', { label: 'Figure 1' }),
    fillPrompt('find-figure-media', { page: '1', kind: loadPrompt('list-media-image'), id: 'alpha#1', desc: 'Box office of Alpha Quest' }),
  ]);
  const none = await run({ label: 'Figure 9', book: 'Alpha Quest' });
  assert.equal(none, fillPrompt('find-figure-none', { book: 'Alpha Quest', label: 'Figure 9' }) + loadPrompt('find-figure-none-hint'));
  assert.ok(/ Browse/.test(none), 'the hint keeps its separating space');
  const harness = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'locator' });
  const json = (await findFigure.handler({ label: 'Figure 1' }, { context: harness } as never)) as { figures: { id: string }[] };
  assert.equal(json.figures[0].id, 'alpha#1', 'the harness JSON as before');
});

test('media_context in the runner layout: head, description, caption, page text, other media of the page, hint; the error note; the harness JSON unchanged', async () => {
  const ctx = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'locator', blockFormat: 'runner' });
  const run = async (id: string) => String(await mediaContext.handler({ fragment_id: id }, { context: ctx } as never));
  const image = loadPrompt('list-media-image');
  const lines = (await run('alpha#1')).split('\n');
  assert.deepEqual(lines, [
    fillPrompt('media-context-head', { kind: image, id: 'alpha#1', page: '1' }),
    fillPrompt('media-context-desc', { kind: image, desc: 'Figure 1: box office of Alpha Quest by year' }),
    `${loadPrompt('media-context-captions')} Box office of Alpha Quest`,
    fillPrompt('media-context-text', { text: 'Alpha Quest is a 1950 film directed by Bob Stone. It was shot in Lisbon.' }),
    `${loadPrompt('media-context-siblings')} ${fillPrompt('media-context-sibling', { kind: loadPrompt('list-media-table'), id: 'alpha#2', desc: 'Table 1: cast of Alpha Quest' })}`,
    loadPrompt('media-context-footer'),
  ]);
  assert.equal(await run('alpha#0'), fillPrompt('media-context-error', { error: 'not_media' }), 'the runner takes figure and table ids only');
  assert.equal(await run('nope#9'), fillPrompt('media-context-error', { error: 'not_found' }));
  assert.equal(ctx.reads.length, 1, 'the reading note of the one figure looked at');
  const harness = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'locator' });
  const json = (await mediaContext.handler({ fragment_id: 'alpha#1' }, { context: harness } as never)) as { id: string; caption: string };
  assert.deepEqual([json.id, json.caption], ['alpha#1', 'Box office of Alpha Quest'], 'the harness JSON as before');
});

test('list_books and book_toc in the runner layout: head with counts and keyword, a line per book; headings indented by level; the notes; the harness JSON unchanged', async () => {
  const toy = toyKb();
  // The toy knowledge base gives every table whatever the document, and no headings: here per document.
  const kb: typeof toy = {
    ...toy,
    tables: (d) => toy.tables().filter((t) => !d || t.docId === d),
    toc: (d) =>
      d === 'alpha'
        ? [
            { path: ['Story'], page: 1, fragmentId: 'alpha#0' },
            { path: ['Story', 'Cast'], page: 1, fragmentId: 'alpha#2' },
          ]
        : [],
  };
  const ctx = newToolContext(kb, { mode: 'hybrid', searchBy: 'locator', blockFormat: 'runner' });
  const run = async (tool: typeof listBooks, args: Record<string, unknown>) => String(await tool.handler(args, { context: ctx } as never));
  const line = (name: string) => fillPrompt('list-books-line', { name });
  assert.deepEqual((await run(listBooks, {})).split('\n'), [
    `${fillPrompt('list-books-head', { total: '3' })}${loadPrompt('list-books-head-end')}`,
    line('Alpha Quest'),
    line('Bob Stone'),
    line('Gamma Ray'),
  ]);
  const kw = (await run(listBooks, { keyword: 'gamma' })).split('\n');
  assert.equal(
    kw[0],
    `${fillPrompt('list-books-head', { total: '3' })}${fillPrompt('list-books-keyword', { keyword: 'gamma', matched: '1' })}${loadPrompt('list-books-head-end')}`,
  );
  assert.equal(await run(listBooks, { keyword: 'zzqx' }), fillPrompt('list-books-none', { total: '3', keyword: 'zzqx' }));
  const empty = newToolContext({ ...kb, documents: () => [] }, { mode: 'hybrid', searchBy: 'locator', blockFormat: 'runner' });
  assert.equal(await listBooks.handler({}, { context: empty } as never), loadPrompt('list-books-empty'));
  assert.deepEqual(
    (await run(bookToc, { book: 'Alpha Quest' })).split('\n'),
    [fillPrompt('book-toc-head', { book: 'Alpha Quest', count: '2' }), '- Story', '  - Cast'],
    'the own pack indents by two spaces and marks with "- " (trailing spaces of those templates kept)',
  );
  const missing = JSON.parse(await run(bookToc, { book: 'zzqx' })) as { error: { code: string; hint: string } };
  assert.deepEqual(missing.error, { code: 'not_found', recoverable: true, hint: loadPrompt('book-toc-missing-hint') });
  const harness = newToolContext(kb, { mode: 'hybrid', searchBy: 'locator' });
  const json = (await listBooks.handler({}, { context: harness } as never)) as { books: { id: string }[] };
  assert.equal(json.books.length, 3, 'the harness JSON as before');
  const toc = (await bookToc.handler({ book: 'alpha' }, { context: harness } as never)) as { headings: { heading: string }[] };
  assert.equal(toc.headings[1].heading, 'Story > Cast');
});
