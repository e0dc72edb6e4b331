/**
 * Runner mode's tools over the knowledge-base API, results written as the released runner writes
 * them: search_knowledge and fragment_context here; the listing tools (listing-tools.ts), the table
 * tools (table-tools.ts) and read_media (read-media.ts) beside. Empty-argument messages are the
 * checkout's own (the `raise ValueError(...)` of each tool function).
 */
import { fieldsOf, type LitPart } from './python-literals';
import { pyJsonDumps, pyStr } from './python-values';
import { fill, missing, offsetOf, runAfter, type RunnerTexts } from './texts';
import type { Json, KbApi } from './kb-api';
import { searchListing, type RunnerMaterials } from './materials';
import type { LoopTool } from './loop';
import type { ChatModel } from '../../model-api/types';
import { bookTocListing, findFigureListing, listBooksListing, listCaps, listMediaListing, mediaContextListing } from './listing-tools';
import { getTableListing, listTablesListing, queryTableListing } from './table-tools';
import { readMedia, readMediaListing } from './read-media';

export interface ToolState {
  kb: KbApi;
  /** The vision model read_media asks. */
  vision?: ChatModel;
  questionId?: string;
  builder: RunnerMaterials;
  queries: string[];
  searchLog: Json[];
}

const plain = (p: LitPart[]) => p.map((x) => (typeof x === 'string' ? x : '')).join('');
const squash = (s: unknown) =>
  String(s ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');

interface ToolTexts {
  emptyQuery: string;
  emptyFragment: string;
  markAnchor: string;
  markOther: string;
  mediaLine: LitPart[];
  fragmentHeader: string;
}

function toolTexts(t: RunnerTexts): ToolTexts {
  const marks = /mark = ("[^"]*") if f\.get\("anchor"\) else ("[^"]*")/.exec(t.materials.src);
  const media = t.materials.runs.find((r) => {
    const f = fieldsOf(r.parts);
    return f.length === 2 && f[0] === 'mark' && f[1].includes('media_path');
  });
  if (!marks || !media) throw missing(t.materials.file, 'the fragment-context marks');
  return {
    emptyQuery: plain(runAfter(t.tools, /raise ValueError\(/, offsetOf(t.tools, /def search_afn/)).parts),
    emptyFragment: plain(runAfter(t.tools, /raise ValueError\(/, offsetOf(t.tools, /def fragment_afn/)).parts),
    markAnchor: JSON.parse(marks[1]) as string,
    markOther: JSON.parse(marks[2]) as string,
    mediaLine: media.parts,
    fragmentHeader: plain(runAfter(t.materials, /block = /, offsetOf(t.materials, /def fragment_mat/)).parts),
  };
}

/** Python's int() of a JSON value (strings of digits, numbers truncated). */
function pyInt(v: unknown, dflt: number): number {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return dflt;
  const n = typeof v === 'string' ? Number(v.trim()) : Number(v);
  if (!Number.isFinite(n)) throw new Error(`invalid literal for int() with base 10: ${JSON.stringify(v)}`);
  return Math.trunc(n);
}

function fragmentListing(tt: ToolTexts, b: RunnerMaterials, data: Json): string {
  if (data.error) return pyJsonDumps({ error: { code: data.error, recoverable: true } });
  const ctx = (data.context ?? []) as Json[];
  const parts = ctx.map((f) => {
    const mark = f.anchor ? tt.markAnchor : tt.markOther;
    const isMedia = f.kind === 'image' || f.kind === 'table';
    const cap = f.anchor && isMedia ? undefined : f.anchor ? 1500 : 500;
    let seg = squash(f.text);
    if (cap) seg = [...seg].slice(0, cap).join('');
    let line = `${mark}${seg}`;
    if (isMedia && f.anchor && f.media_path) line += fill(tt.mediaLine, { mark, "f['media_path']": String(f.media_path) });
    return line;
  });
  return b.addPlain(
    tt.fragmentHeader + parts.join('\n'),
    ctx.map((f) => f.fragment_id),
  );
}

/** The message of the first `raise ValueError(...)` in a tool function of tools.py. */
const emptyArg = (t: RunnerTexts, fn: string) => plain(runAfter(t.tools, /raise ValueError\(/, offsetOf(t.tools, new RegExp(`def ${fn}\\(`))).parts);

const str = (v: unknown) => (v === undefined || v === null || v === '' || v === 0 || v === false ? '' : pyStr(v));

/** list_books: the sources as name, root node and one line, filtered by a keyword, capped. */
async function listBooks(t: RunnerTexts, kb: KbApi, args: Record<string, unknown>): Promise<Json> {
  const data = await kb.sources();
  const all = ((data.sources ?? []) as Json[]).map((x) => ({ name: str(x.name), root_node_id: str(x.root_node_id), one_line: str(x.one_line) }));
  const keyword = str(args.keyword).trim();
  const books = keyword ? all.filter((b) => b.name.toLowerCase().includes(keyword.toLowerCase())) : all;
  const cap = listCaps(t.materials).books;
  return { total: all.length, matched: books.length, keyword, books: books.slice(0, cap), truncated: books.length > cap };
}

function readingTools(t: RunnerTexts, st: ToolState): Record<string, (args: Record<string, unknown>) => Promise<string>> {
  const m = t.materials;
  const b = st.builder;
  const need = (v: unknown, fn: string) => {
    const x = str(v).trim();
    if (!x) throw new Error(emptyArg(t, fn));
    return x;
  };
  return {
    list_books: async (args) => listBooksListing(m, b, await listBooks(t, st.kb, args)),
    book_toc: async (args) => bookTocListing(m, b, await st.kb.get('book-toc', { book: need(args.book, 'book_toc_afn') })),
    list_tables: async () => listTablesListing(m, await st.kb.get('tables', {})),
    query_table: async (args) =>
      queryTableListing(m, b, await st.kb.get('query-table', { item: need(args.item, 'query_table_afn'), table_id: str(args.table_id) })),
    get_table: async (args) => getTableListing(m, b, await st.kb.get('table', { table_id: need(args.table_id, 'get_table_afn') })),
    async list_media(args) {
      const p: Record<string, string> = { book: str(args.book), kind: str(args.kind) || 'all' };
      if (str(args.page)) p.page = str(args.page);
      const heading = str(args.heading) || str(args.section);
      if (heading) p.heading = heading;
      return listMediaListing(m, b, await st.kb.get('list-media', p));
    },
    find_figure: async (args) => findFigureListing(m, b, await st.kb.get('find-figure', { label: str(args.label), book: str(args.book) })),
    media_context: async (args) => mediaContextListing(m, b, await st.kb.get('media-context', { fragment_id: need(args.fragment_id, 'media_context_afn') })),
    async read_media(args) {
      if (!st.vision) throw new Error('read_media needs a vision model');
      return readMediaListing(t, b, await readMedia(t, st.kb, st.vision, args, st.questionId));
    },
  };
}

export function runnerTools(t: RunnerTexts, st: ToolState, names: string[]): LoopTool[] {
  const tt = toolTexts(t);
  const impl: Record<string, (args: Record<string, unknown>) => Promise<string>> = {
    ...readingTools(t, st),
    async search_knowledge(args) {
      const query = String(args.query ?? '').trim();
      if (!query) throw new Error(tt.emptyQuery);
      const topk = pyInt(args.topk, 8);
      const data = await st.kb.search(query, topk);
      st.queries.push(query);
      st.searchLog.push({ call: st.searchLog.length, query, data });
      return searchListing(st.builder, data);
    },
    async fragment_context(args) {
      const fid = String(args.fragment_id ?? '').trim();
      if (!fid) throw new Error(tt.emptyFragment);
      const data = await st.kb.get('fragment-context', { fragment_id: fid, window: String(pyInt(args.window, 1)) });
      return fragmentListing(tt, st.builder, data);
    },
  };
  return names.map((name) => ({
    name,
    run:
      impl[name] ??
      (() => {
        throw new Error(`${name} is not ported to the harness's runner mode yet`);
      }),
  }));
}
