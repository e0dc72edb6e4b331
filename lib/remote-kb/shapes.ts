/**
 * The hosted knowledge-base API's JSON, read into the harness's types. Field
 * names follow what the authors' released client reads from each endpoint
 * (search `results`/`images`/`tables`/`examples`, `fragment-context`
 * `context` entries with an `anchor` flag, `sources` with `name` and
 * `root_node_id`, `book-toc` `toc.sections` with levels, ...). A few optional
 * fields the hosted server may not send are read when present (`rank`,
 * `section`, `cells`, `path` of a heading, `anchor_fragment_id`), so a server
 * that has them (the test server over a local index) round-trips exactly;
 * without them the reader falls back (score order, level-built heading paths,
 * rows keyed by column).
 *
 * Documents are named by file: a document's id is its file name without the
 * extension, as the released runner counts documents for recall.
 */
import type { Fragment, FragmentKind, MediaAsset, TableData } from '../corpus/types';
import type { SearchHit } from '../index/types';
import type { KbHeading, KbMedia, KbTable } from '../pipeline/knowledge-base';

export type Json = Record<string, unknown>;

const KINDS: readonly FragmentKind[] = ['text', 'image', 'table', 'example'];
const VIAS: readonly SearchHit['via'][] = ['bm25', 'dense', 'hybrid'];

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

export function num(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

export function list(v: unknown): Json[] {
  return Array.isArray(v) ? v.filter((x): x is Json => !!x && typeof x === 'object' && !Array.isArray(x)) : [];
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.map((x) => String(x)) : undefined;
}

/** Extensions of document files: only these are cut from a name (a dot inside a name is part of it). */
export const DOCUMENT_EXTENSIONS = /^\.(pdf|md|markdown|txt|text|html?|xhtml|docx?|pptx?|xlsx?|csv|tsv|json|jsonl|epub|rtf|odt|xml)$/i;

/**
 * A file name's stem: "dir/Report 2019.pdf" -> "Report 2019". Only a document extension is cut, so
 * names with dots stay whole ("2310.05634v2" and "PH_2016.06.08_Economy-Final" are stems already).
 */
export function docStem(name: string): string {
  const base = name.replace(/\\/g, '/').split('/').pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 && DOCUMENT_EXTENSIONS.test(base.slice(dot)) ? base.slice(0, dot) : base;
}

function kindOf(v: unknown, fallback: FragmentKind): FragmentKind {
  return KINDS.includes(v as FragmentKind) ? (v as FragmentKind) : fallback;
}

/** The page a hosted item names: its `page`, else the `page_<n>_` of its media path. */
function pageOf(it: Json): number | undefined {
  const p = num(it.page);
  if (p !== undefined) return p;
  const m = /page_(\d+)_/.exec(str(it.media_path) ?? str(it.path) ?? '');
  return m ? Number(m[1]) : undefined;
}

function sectionOf(it: Json): string[] {
  return strings(it.section) ?? (str(it.section_title) ? [str(it.section_title)!] : []);
}

/** Which document an item belongs to: its source file, else its root node's document. */
export function docOf(it: Json, rootDocs: ReadonlyMap<string, string>): string {
  const file = str(it.source_file);
  if (file) return docStem(file);
  return rootDocs.get(str(it.root_node_id) ?? '') ?? '';
}

const MIME: Record<string, string> = { svg: 'image/svg+xml', gif: 'image/gif', webp: 'image/webp', jpeg: 'image/jpeg', jpg: 'image/jpeg', png: 'image/png' };

export function mimeOfName(name: string): string {
  return MIME[name.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream';
}

function mediaOfContext(entries: Json[]): SearchHit['media'] {
  return entries
    .filter((c) => c.kind === 'image' || c.kind === 'table')
    .map((c) => ({
      fragmentId: str(c.fragment_id) ?? '',
      kind: kindOf(c.kind, 'image'),
      ...(str(c.label) ? { label: str(c.label) } : {}),
      ...(str(c.caption) ? { caption: str(c.caption) } : {}),
    }))
    .filter((m) => m.fragmentId);
}

function hitOf(it: Json, fallbackKind: FragmentKind, rootDocs: ReadonlyMap<string, string>): SearchHit {
  const anchor = str(it.anchor_fragment_id);
  const fromGraph = it.from_graph === true || !!anchor;
  const scores: SearchHit['scores'] = {};
  if (num(it.bm25_score) !== undefined) scores.bm25 = num(it.bm25_score);
  if (num(it.vec_score) !== undefined) scores.dense = num(it.vec_score);
  if (num(it.raw_score) !== undefined) scores.fused = num(it.raw_score);
  const context = list(it.context);
  const texts = context.filter((c) => c.kind === 'text' || c.kind === undefined);
  const prev = str(texts.find((c) => c.position === 'prev')?.text) ?? (texts.some((c) => c.position) ? undefined : str(texts[0]?.text));
  const next = str(texts.find((c) => c.position === 'next')?.text) ?? (texts.some((c) => c.position) ? undefined : str(texts[1]?.text));
  return {
    fragmentId: str(it.fragment_id) ?? '',
    docId: docOf(it, rootDocs),
    kind: kindOf(it.kind, fallbackKind),
    rank: 0,
    score: num(it.score) ?? 0,
    scores,
    via: fromGraph ? 'expansion' : VIAS.includes(it.via as SearchHit['via']) ? (it.via as SearchHit['via']) : 'hybrid',
    ...(anchor ? { anchorId: anchor } : {}),
    ...(str(it.relation) ? { relation: str(it.relation) } : {}),
    text: str(it.text) ?? str(it.caption) ?? '',
    page: pageOf(it),
    section: sectionOf(it),
    ...(prev !== undefined || next !== undefined ? { context: { ...(prev !== undefined ? { prev } : {}), ...(next !== undefined ? { next } : {}) } } : {}),
    media: mediaOfContext(context),
  };
}

/** A search reply as ranked hits: by the server's `rank` when every item has one, else by score (text first on ties). */
export function hitsOfSearch(data: Json, rootDocs: ReadonlyMap<string, string>): SearchHit[] {
  const groups: [string, FragmentKind][] = [
    ['results', 'text'],
    ['images', 'image'],
    ['tables', 'table'],
    ['examples', 'example'],
  ];
  const items = groups.flatMap(([key, kind]) => list(data[key]).map((it) => ({ it, hit: hitOf(it, kind, rootDocs) })));
  const ranked = items.every((x) => num(x.it.rank) !== undefined);
  const order = ranked ? [...items].sort((a, b) => num(a.it.rank)! - num(b.it.rank)!) : [...items].sort((a, b) => b.hit.score - a.hit.score);
  return order.filter((x) => x.hit.fragmentId).map((x, i) => ({ ...x.hit, rank: i + 1 }));
}

/** One `fragment-context` entry as a fragment. */
export function fragmentOf(e: Json, rootDocs: ReadonlyMap<string, string>): Fragment {
  const mediaPath = str(e.media_path);
  const cells = Array.isArray(e.cells) ? (e.cells as unknown[][]).map((r) => r.map((c) => String(c ?? ''))) : undefined;
  const header = strings(e.columns);
  const media: MediaAsset | undefined = mediaPath ? { path: mediaPath, mime: mimeOfName(mediaPath), origin: 'file' } : undefined;
  return {
    id: str(e.fragment_id) ?? '',
    docId: docOf(e, rootDocs),
    kind: kindOf(e.kind, 'text'),
    text: str(e.text) ?? '',
    page: pageOf(e),
    section: sectionOf(e),
    ordinal: num(e.ordinal) ?? 0,
    attached: strings(e.attached) ?? [],
    ...(str(e.anchor_fragment_id) ? { anchor: str(e.anchor_fragment_id) } : {}),
    ...(media ? { media } : {}),
    ...(cells && header ? { table: { header, rows: cells } } : {}),
    ...(str(e.caption) ? { caption: str(e.caption) } : {}),
    ...(str(e.label) ? { label: str(e.label) } : {}),
    ...(str(e.ocr_text) ? { ocrText: str(e.ocr_text) } : {}),
  };
}

/** `book-toc` sections as headings: the server's `path` when given, else built from the levels. */
export function headingsOfToc(data: Json): KbHeading[] {
  const toc = (data.toc && typeof data.toc === 'object' ? data.toc : {}) as Json;
  const stack: string[] = [];
  return list(toc.sections).map((s) => {
    const title = str(s.title) ?? '';
    const level = Math.max(1, Math.floor(num(s.level) ?? 1));
    stack.length = level - 1;
    stack[level - 1] = title;
    return { path: strings(s.path) ?? stack.map((x) => x ?? ''), page: num(s.page), fragmentId: str(s.fragment_id) ?? '' };
  });
}

export function tableOf(t: Json, rootDocs: ReadonlyMap<string, string>): KbTable {
  return {
    fragmentId: str(t.table_id) ?? str(t.fragment_id) ?? '',
    docId: docOf(t, rootDocs),
    page: num(t.page),
    ...(str(t.label) ? { label: str(t.label) } : {}),
    caption: str(t.caption) ?? str(t.name),
    header: strings(t.columns) ?? [],
    rowCount: num(t.row_count) ?? 0,
  };
}

/** Rows of a table reply: `cells` (exact) when given, else the row objects in column order. */
export function rowsOf(d: Json): { header: string[]; rows: string[][] } {
  const objects = list(d.rows);
  const header = strings(d.columns) ?? (objects[0] ? Object.keys(objects[0]) : []);
  if (Array.isArray(d.cells)) return { header, rows: (d.cells as unknown[][]).map((r) => r.map((c) => String(c ?? ''))) };
  return { header, rows: objects.map((r) => header.map((h) => String(r[h] ?? ''))) };
}

export function tableDataOf(d: Json): TableData | undefined {
  if (!Object.keys(d).length || d.error) return undefined;
  const { header, rows } = rowsOf(d);
  // The full size matters only when the rows were cut (TableData.rowCount).
  const cut = d.truncated === true;
  return { header, rows, ...(cut ? { truncated: true } : {}), ...(cut && num(d.row_count) !== undefined ? { rowCount: num(d.row_count) } : {}) };
}

export function mediaOf(it: Json, rootDocs: ReadonlyMap<string, string>, fallbackDoc?: string): KbMedia {
  return {
    fragmentId: str(it.fragment_id) ?? '',
    docId: docOf(it, rootDocs) || fallbackDoc || '',
    kind: kindOf(it.kind, 'image'),
    page: num(it.page),
    ...(str(it.label) ? { label: str(it.label) } : {}),
    caption: str(it.caption) ?? str(it.desc),
    section: sectionOf(it),
  };
}
