/**
 * The Locator's tools (spec job 2): they only FIND (search and enumerate).
 * None of them returns more than a preview of a fragment; reading is the Deep
 * Reader's job. Limits come from KB_LIMITS via the knowledge-base view.
 */
import type { AgentTool } from '../../agents/tools';
import { KB_LIMITS } from '../../pipeline/knowledge-base';
import { clip, type KfToolContext } from './context';
import { runSearch, searchResult } from './search';
import { runnerBookListing, runnerBookToc, runnerBookTocMissing } from './book-listing';
import { runnerGetTable, runnerQueryTable, runnerTableListing } from './table-listing';

type Tool = AgentTool<KfToolContext>;
const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? undefined : String(v));

/** The book argument may be a document id or its title. */
export function resolveBook(ctx: KfToolContext, book: string): string | undefined {
  if (ctx.kb.toc(book).length || ctx.kb.tables(book).length) return book;
  const lower = book.trim().toLowerCase();
  const docs = ctx.kb.documents(book);
  return (docs.find((d) => d.title.toLowerCase() === lower || d.id.toLowerCase() === lower) ?? docs[0])?.id;
}

export const searchKnowledge: Tool = {
  name: 'search_knowledge',
  description:
    'Search the knowledge base (hybrid retrieval). Returns the top hits with a short preview, their document, page and section. ' +
    `Default topk ${KB_LIMITS.searchTopk}.`,
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', description: 'search text' }, topk: { type: 'integer', description: `hits (default ${KB_LIMITS.searchTopk})` } },
    required: ['query'],
  },
  isSearch: true,
  async handler(args, c) {
    const entry = await runSearch(c.context, String(args.query), Number(args.topk ?? KB_LIMITS.searchTopk), c.context.searchBy);
    return searchResult(c.context, entry);
  },
};

export const listBooks: Tool = {
  name: 'list_books',
  description: `List the documents (books) of the knowledge base, optionally those whose title contains a keyword (at most ${KB_LIMITS.listBooks}).`,
  parameters: { type: 'object', properties: { keyword: { type: 'string' } } },
  async handler(args, c) {
    const docs = c.context.kb.documents(str(args.keyword));
    if (c.context.blockFormat === 'runner') return runnerBookListing(c.context, str(args.keyword), docs);
    return { books: docs.map((d) => ({ id: d.id, title: d.title, ...(d.pages ? { pages: d.pages } : {}), fragments: d.fragments })) };
  },
};

export const bookToc: Tool = {
  name: 'book_toc',
  description: `Table of contents of one document: its headings with page and first fragment id (at most ${KB_LIMITS.tocHeadings}).`,
  parameters: { type: 'object', properties: { book: { type: 'string', description: 'document id or title' } }, required: ['book'] },
  async handler(args, c) {
    const id = resolveBook(c.context, String(args.book));
    const runner = c.context.blockFormat === 'runner';
    if (!id)
      return runner
        ? runnerBookTocMissing('not_found')
        : { error: { code: 'not_found', detail: `no document matches "${args.book}"; use list_books`, recoverable: true } };
    if (runner) return runnerBookToc(c.context.kb.title(id) ?? id, c.context.kb.toc(id));
    return {
      book: c.context.kb.title(id) ?? id,
      headings: c.context.kb.toc(id).map((h) => ({ heading: h.path.join(' > '), ...(h.page !== undefined ? { page: h.page } : {}), fragment: h.fragmentId })),
    };
  },
};

export const listTables: Tool = {
  name: 'list_tables',
  description: 'List the tables of the knowledge base (id, document, page, label, caption, header, row count).',
  parameters: { type: 'object', properties: {} },
  async handler(_args, c) {
    const tables = c.context.kb.tables().slice(0, KB_LIMITS.mediaList);
    if (c.context.blockFormat === 'runner') return runnerTableListing(c.context.kb, tables);
    return {
      tables: tables.map((t) => ({
        id: t.fragmentId,
        doc: c.context.kb.title(t.docId) ?? t.docId,
        page: t.page,
        label: t.label,
        caption: clip(t.caption, 120),
        header: t.header,
        rows: t.rowCount,
      })),
    };
  },
};

export const queryTable: Tool = {
  name: 'query_table',
  description: `Rows of the tables (or of one table) that contain an item, at most ${KB_LIMITS.tableRows} rows per table.`,
  parameters: {
    type: 'object',
    properties: { item: { type: 'string', description: 'text a row must contain' }, table_id: { type: 'string' } },
    required: ['item'],
  },
  async handler(args, c) {
    const found = c.context.kb.queryTable(String(args.item), str(args.table_id)).slice(0, 10);
    if (c.context.blockFormat === 'runner') return runnerQueryTable(c.context.kb, String(args.item), found);
    return {
      matches: found.map((m) => ({
        table: m.table.fragmentId,
        doc: c.context.kb.title(m.table.docId) ?? m.table.docId,
        label: m.table.label,
        header: m.header,
        rows: m.rows,
      })),
    };
  },
};

export const getTable: Tool = {
  name: 'get_table',
  description: 'A whole table by id (header and rows).',
  parameters: { type: 'object', properties: { table_id: { type: 'string' } }, required: ['table_id'] },
  async handler(args, c) {
    const t = c.context.kb.table(String(args.table_id));
    if (!t) return { error: { code: 'not_found', detail: `no table ${args.table_id}; use list_tables`, recoverable: true } };
    if (c.context.blockFormat === 'runner')
      return runnerGetTable(c.context.kb, String(args.table_id), { header: t.header, rows: t.rows.slice(0, 200), rowCount: t.rowCount ?? t.rows.length });
    return {
      table: args.table_id,
      header: t.header,
      rows: t.rows.slice(0, 200),
      ...(t.truncated || t.rows.length > 200 ? { truncated: true, rowCount: t.rowCount ?? t.rows.length } : {}),
    };
  },
};

export const LOCATOR_TOOLS: readonly Tool[] = [searchKnowledge, listBooks, bookToc, listTables, queryTable, getTable];
