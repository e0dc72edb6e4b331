/**
 * The scripted knowledge-base server of the remote-kb tests: a child process
 * (the client's synchronous lookups block the test's own thread, so the server
 * cannot share it) that serves a local index through the hosted
 * `/api/v2/kb/{uuid}/...` API, in the JSON shapes lib/remote-kb/shapes.ts reads.
 *
 * Package "demo" is the index at KB_INDEX_DIR. Other package ids script the
 * failures a client must handle:
 *   not-enabled -> 403; flaky -> two 429s per endpoint, then "demo";
 *   always-429 -> 429 forever; slow -> never answers; html -> a login page;
 *   refuse -> {success: false}; array -> a JSON array.
 * A request without a key gets 426, with another key than KB_KEY 401.
 * The parent learns the port from one IPC message {port}; each request is
 * also reported ({seen: endpoint, auth}) so the test can count retries.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { Fragment } from '../../lib/corpus/types';
import type { SearchHit } from '../../lib/index/types';
import { openIndex } from '../../lib/index/open';
import type { KbMedia, KbTable } from '../../lib/pipeline/knowledge-base';
import { engineKnowledgeBase } from '../../lib/pipeline/index-view';
import { indexAssetResolver } from '../../lib/answer/vision';

type Json = Record<string, unknown>;
type Kb = ReturnType<typeof engineKnowledgeBase>;

const fileOf = (docId: string) => `${docId}.md`;
const rootOf = (docId: string) => `root:${docId}`;
const GROUP: Record<string, string> = { text: 'results', image: 'images', table: 'tables', example: 'examples' };

function hitJson(h: SearchHit): Json {
  const context: Json[] = [];
  if (h.context?.prev !== undefined) context.push({ kind: 'text', position: 'prev', text: h.context.prev });
  if (h.context?.next !== undefined) context.push({ kind: 'text', position: 'next', text: h.context.next });
  for (const m of h.media) context.push({ kind: m.kind, fragment_id: m.fragmentId, label: m.label, caption: m.caption });
  return {
    fragment_id: h.fragmentId,
    source_file: fileOf(h.docId),
    kind: h.kind,
    rank: h.rank,
    score: h.score,
    bm25_score: h.scores.bm25,
    vec_score: h.scores.dense,
    raw_score: h.scores.fused,
    via: h.via,
    from_graph: h.via === 'expansion',
    anchor_fragment_id: h.anchorId,
    relation: h.relation,
    text: h.text,
    page: h.page,
    section: h.section,
    context,
  };
}

function fragmentJson(f: Fragment, anchor: boolean): Json {
  return {
    anchor,
    fragment_id: f.id,
    source_file: fileOf(f.docId),
    kind: f.kind,
    text: f.text,
    page: f.page,
    section: f.section,
    ordinal: f.ordinal,
    attached: f.attached,
    anchor_fragment_id: f.anchor,
    media_path: f.media?.path,
    ...(f.table ? { columns: f.table.header, cells: f.table.rows } : {}),
    caption: f.caption,
    label: f.label,
    ocr_text: f.ocrText,
  };
}

const tableJson = (t: KbTable): Json => ({
  table_id: t.fragmentId,
  source_file: fileOf(t.docId),
  page: t.page,
  label: t.label,
  caption: t.caption,
  columns: t.header,
  row_count: t.rowCount,
});
const mediaJson = (m: KbMedia): Json => ({
  fragment_id: m.fragmentId,
  source_file: fileOf(m.docId),
  kind: m.kind,
  page: m.page,
  label: m.label,
  caption: m.caption,
  section: m.section,
});
const docOfBook = (book: string | null) => (book ? book.replace(/\.md$/, '') : undefined);

/** The `data` of one endpoint over the local view; a string = a file to send for download. */
async function answer(kb: Kb, endpoint: string, q: URLSearchParams, body: Json): Promise<Json | { file: string }> {
  const num = (k: string) => (q.get(k) ? Number(q.get(k)) : undefined);
  switch (endpoint) {
    case 'card':
      return { name: 'demo world (scripted)', description: 'the tiny demo index served for tests', documents: kb.documents().length };
    case 'overview':
      return { documents: kb.documents().map((d) => d.title), fragments: kb.documents().reduce((n, d) => n + d.fragments, 0) };
    case 'sources':
      return {
        sources: kb.documents().map((d) => ({ name: fileOf(d.id), title: d.title, pages: d.pages, fragments: d.fragments, root_node_id: rootOf(d.id) })),
      };
    case 'search': {
      const r = await kb.search(String(body.query ?? ''), { k: Number(body.topk ?? 8), ...(body.mode ? { mode: String(body.mode) } : {}) });
      const out: Record<string, Json[]> = { results: [], images: [], tables: [], examples: [] };
      for (const h of r.hits) out[GROUP[h.kind]].push(hitJson(h));
      return out;
    }
    case 'fragment-context': {
      const id = q.get('fragment_id') ?? '';
      const f = kb.fragment(id);
      if (!f) return { error: `no fragment ${id}` };
      return { context: [fragmentJson(f, true), ...kb.neighbours(id, num('window') ?? 1).map((n) => fragmentJson(n, false))] };
    }
    case 'book-toc':
      return {
        toc: {
          sections: kb
            .toc(docOfBook(q.get('book')) ?? '')
            .map((h) => ({ title: h.path.at(-1), level: h.path.length, path: h.path, page: h.page, fragment_id: h.fragmentId })),
        },
      };
    case 'tables':
      return { tables: kb.tables().map(tableJson) };
    case 'query-table':
      return {
        results: kb
          .queryTable(q.get('item') ?? '', q.get('table_id') || undefined)
          .map((r) => ({ table_id: r.table.fragmentId, columns: r.header, cells: r.rows })),
      };
    case 'table': {
      const t = kb.table(q.get('table_id') ?? '');
      return t ? { columns: t.header, cells: t.rows, truncated: t.truncated, row_count: t.rowCount } : { error: 'no such table' };
    }
    case 'list-media': {
      const kind = q.get('kind');
      const items = kb.media({
        doc: docOfBook(q.get('book')),
        ...(kind && kind !== 'all' ? { kind: kind as KbMedia['kind'] } : {}),
        page: num('page'),
        heading: q.get('heading') || undefined,
      });
      return { items: items.map(mediaJson) };
    }
    case 'find-figure':
      return { media: kb.findFigure(q.get('label') ?? '', docOfBook(q.get('book'))).map(mediaJson) };
    case 'media-context': {
      const id = q.get('fragment_id') ?? '';
      const f = kb.fragment(id);
      return f ? { fragment_id: id, caption: f.caption, before: f.prev, after: f.next } : { error: `no fragment ${id}` };
    }
    case 'download': {
      const f = kb.fragment(q.get('fragment_id') ?? '');
      const file = f?.media ? indexAssetResolver(kb.id)?.(f.media, f) : undefined;
      return { file: file && fs.existsSync(file) ? file : '' };
    }
    default:
      return { error: `no endpoint ${endpoint}` };
  }
}

const calls = new Map<string, number>();

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/html' : 'application/json', ...headers });
  res.end(text);
}

async function main(): Promise<void> {
  const idx = await openIndex(process.env.KB_INDEX_DIR!);
  const kb = engineKnowledgeBase(idx);
  const key = process.env.KB_KEY!;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const m = /^\/api\/v2\/kb\/([^/]+)\/([\w-]+)$/.exec(url.pathname);
        const auth = req.headers.authorization ?? '';
        process.send?.({ seen: m?.[2], uuid: m?.[1], auth });
        if (!m) return send(res, 404, { success: false, error: 'no route' });
        const [, uuid, endpoint] = m;
        if (!auth) return send(res, 426, { success: false, error: 'an API key is required' });
        if (auth !== `Bearer ${key}`) return send(res, 401, { success: false, error: 'invalid key' });
        const n = (calls.get(`${uuid}/${endpoint}`) ?? 0) + 1;
        calls.set(`${uuid}/${endpoint}`, n);
        if (uuid === 'not-enabled') return send(res, 403, { success: false, error: 'package not enabled' });
        if (uuid === 'always-429' || (uuid === 'flaky' && n <= 2)) return send(res, 429, { success: false, error: 'slow down' }, { 'retry-after': '0' });
        if (uuid === 'slow') return; // never answers
        if (uuid === 'html') return send(res, 200, '<html><body>Please log in</body></html>');
        if (uuid === 'refuse') return send(res, 200, { success: false, error: 'bad arguments' });
        if (uuid === 'array') return send(res, 200, [1, 2, 3]);
        const data = await answer(kb, endpoint, url.searchParams, raw ? (JSON.parse(raw) as Json) : {});
        if (endpoint === 'download') {
          const file = (data as { file: string }).file;
          if (!file) return send(res, 404, { success: false, error: 'no asset' });
          res.writeHead(200, { 'content-type': 'image/png', 'content-disposition': `attachment; filename="${path.basename(file)}"` });
          return res.end(fs.readFileSync(file));
        }
        send(res, 200, { success: true, data });
      })().catch((e: Error) => send(res, 500, { success: false, error: e.message }));
    });
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
}

void main();
