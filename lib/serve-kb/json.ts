/**
 * The harness's fragments and hits written in the hosted API's JSON: the fields the released runner
 * reads (its kb_client and materials) plus the harness's own exact fields (rank, section path, table
 * cells, ordinal, ...) that the harness's remote view reads back, so a served index round-trips.
 *
 * Scores: `score` is on the hosted API's 0-10 scale (the runner's weak-relevance gate is 2.0 on it):
 * the harness's fused score (0-1) times ten. `raw_score` is the fused score, `vec_score` the dense
 * cosine, `bm25_score` the BM25 score, as the harness computed them.
 *
 * Media: the hosted API names a figure's or table's file by a path with its page (`page_<n>_...`,
 * the runner's page tag) and extension (`ext`: a table rendered from a PDF is "pdf", a table with no
 * stored image "csv"); the bytes come from `download`.
 */
import * as path from 'node:path';
import type { Fragment } from '../corpus/types';
import type { SearchHit } from '../index/types';
import { mediaDesc } from '../pipeline/media-context';
import { rootNodeOf, type ServedPackage } from './packages';

export type Json = Record<string, unknown>;

/** The hosted score scale over the harness's 0-1 fused score. */
export const SCORE_SCALE = 10;

/** The file name a document is shown by. */
export function fileOf(pkg: ServedPackage, docId: string): string {
  return pkg.corpus.document(docId)?.file ?? `${docId}.md`;
}

/** Where a document's fragments say they come from. */
export function docFields(pkg: ServedPackage, docId: string): Json {
  const file = fileOf(pkg, docId);
  return { source_file: file, source_path: file, root_node_id: rootNodeOf(docId) };
}

/** The extension the API gives a media fragment's file. */
export function mediaExt(f: Pick<Fragment, 'kind' | 'media'>): string {
  if (f.kind === 'table') return f.media ? 'pdf' : 'csv';
  const ext = path
    .extname(f.media?.path ?? '')
    .slice(1)
    .toLowerCase();
  return ext || f.media?.mime.split('/')[1] || 'png';
}

/** The API's path of a media fragment's file (page tag included); undefined for a fragment without a stored file. */
export function mediaPath(pkg: ServedPackage, f: Fragment): string | undefined {
  if (!f.media || (f.kind !== 'image' && f.kind !== 'table')) return undefined;
  const stem = fileOf(pkg, f.docId).replace(/\.[^.]+$/, '');
  const ext = f.kind === 'table' ? 'png' : mediaExt(f);
  return `assets/${stem}/${f.page !== undefined ? `page_${f.page}_` : ''}${f.kind}_${f.ordinal}.${ext}`;
}

function definedOnly(o: Json): Json {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

/** A fragment as fragment-context and the listings write it. */
export function fragmentJson(pkg: ServedPackage, f: Fragment): Json {
  const media = mediaPath(pkg, f);
  return definedOnly({
    fragment_id: f.id,
    kind: f.kind,
    ...docFields(pkg, f.docId),
    page: f.page,
    section: f.section,
    section_title: f.section.at(-1) ?? '',
    ordinal: f.ordinal,
    text: f.text,
    caption: f.caption,
    label: f.label,
    attached: f.attached,
    anchor_fragment_id: f.anchor,
    ocr_text: f.ocrText,
    ...(media ? { media_path: media } : {}),
    ...(f.kind === 'image' || f.kind === 'table' ? { ext: mediaExt(f) } : {}),
    ...(f.table ? { columns: f.table.header, cells: f.table.rows } : {}),
  });
}

/** A figure or table as list-media, find-figure and media-context list it. */
export function mediaItemJson(pkg: ServedPackage, f: Fragment): Json {
  return definedOnly({
    fragment_id: f.id,
    kind: f.kind,
    page: f.page ?? null,
    desc: mediaDesc(f),
    label: f.label,
    caption: f.caption,
    section: f.section,
    ...docFields(pkg, f.docId),
  });
}

/** A hit's neighbours and attached media, as the runner reads `context` entries. */
function contextJson(pkg: ServedPackage, h: SearchHit): Json[] {
  const out: Json[] = [];
  if (h.context?.prev !== undefined) out.push({ kind: 'text', position: 'prev', text: h.context.prev });
  if (h.context?.next !== undefined) out.push({ kind: 'text', position: 'next', text: h.context.next });
  if (h.kind !== 'text' && h.kind !== 'example') return out;
  for (const m of h.media) {
    const f = pkg.kb.fragment(m.fragmentId);
    const p = f ? mediaPath(pkg, f) : undefined;
    out.push(
      definedOnly({
        kind: m.kind,
        fragment_id: m.fragmentId,
        label: m.label,
        caption: m.caption ?? (f ? mediaDesc(f) : undefined),
        path: p ?? '',
        ext: f ? mediaExt(f) : m.kind === 'table' ? 'csv' : 'png',
        page: f?.page,
      }),
    );
  }
  return out;
}

/** One search hit. `scoreFields` false leaves out the component scores. */
export function hitJson(pkg: ServedPackage, h: SearchHit, scoreFields: boolean): Json {
  const f = pkg.kb.fragment(h.fragmentId);
  const media = f ? mediaPath(pkg, f) : undefined;
  const isMedia = h.kind === 'image' || h.kind === 'table';
  return definedOnly({
    fragment_id: h.fragmentId,
    kind: h.kind,
    ...docFields(pkg, h.docId),
    rank: h.rank,
    score: h.score * SCORE_SCALE,
    // The runner's pool ranks by these (an expansion hit has no dense or fused score of its own: 0).
    ...(scoreFields ? { raw_score: h.scores.fused ?? 0, vec_score: h.scores.dense ?? 0, bm25_score: h.scores.bm25 ?? 0 } : {}),
    via: h.via,
    from_graph: h.via === 'expansion',
    anchor_fragment_id: h.anchorId,
    relation: h.relation,
    text: h.text,
    page: h.page,
    section: h.section,
    section_title: h.section.at(-1) ?? '',
    origin_kind: h.kind,
    ...(isMedia ? { caption: f ? mediaDesc(f) : h.text.slice(0, 160), label: f?.label, path: media ?? '', ext: f ? mediaExt(f) : 'png' } : {}),
    ...(media ? { media_path: media } : {}),
    context: contextJson(pkg, h),
  });
}
