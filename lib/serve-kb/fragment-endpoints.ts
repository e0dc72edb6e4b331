/**
 * The endpoints about fragments: `search` (POST {query, topk, score_fields}), `fragment-context`
 * (a fragment among its neighbours, in reading order, the hit marked `anchor`), `media-context`
 * (a figure or table with its page) and which file `download` sends.
 */
import type { Fragment } from '../corpus/types';
import { KB_LIMITS } from '../pipeline/knowledge-base';
import { SERVED_MAX_TOPK } from './corpus';
import { docFields, fragmentJson, hitJson, mediaItemJson, type Json } from './json';
import type { ServedPackage } from './packages';

/** Widest fragment-context window served. */
const MAX_WINDOW = 10;
const GROUP: Record<Fragment['kind'], string> = { text: 'results', image: 'images', table: 'tables', example: 'examples' };

/** A request's mistake: answered 400 with this message. */
export class BadRequest extends Error {}

function intParam(v: unknown, name: string, dflt: number, min: number, max: number): number {
  if (v === undefined || v === null || v === '') return dflt;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new BadRequest(`${name} must be a number, got ${JSON.stringify(v)}`);
  return Math.min(max, Math.max(min, Math.floor(n)));
}

export async function search(pkg: ServedPackage, body: Json): Promise<Json> {
  const query = typeof body.query === 'string' ? body.query : '';
  if (!query.trim()) throw new BadRequest('query is required (a non-empty string)');
  const topk = intParam(body.topk, 'topk', KB_LIMITS.searchTopk, 1, SERVED_MAX_TOPK);
  const scoreFields = body.score_fields !== false;
  const r = await pkg.kb.search(query, { k: topk });
  const out: Record<string, Json[]> = { results: [], images: [], tables: [], examples: [] };
  for (const h of r.hits) out[GROUP[h.kind]].push(hitJson(pkg, h, scoreFields));
  return { query, topk, ...out };
}

export function fragmentContext(pkg: ServedPackage, q: URLSearchParams): Json {
  const id = q.get('fragment_id') ?? '';
  const f = id ? pkg.kb.fragment(id) : undefined;
  if (!f) return { error: 'fragment_not_found', fragment_id: id };
  const window = intParam(q.get('window'), 'window', 1, 0, MAX_WINDOW);
  const around = [f, ...pkg.kb.neighbours(id, window)].sort((a, b) => a.ordinal - b.ordinal);
  return { fragment_id: id, window, context: around.map((x) => ({ anchor: x.id === id, ...fragmentJson(pkg, x) })) };
}

export function mediaContext(pkg: ServedPackage, q: URLSearchParams): Json {
  const id = q.get('fragment_id') ?? '';
  const f = id ? pkg.kb.fragment(id) : undefined;
  if (!f) return { error: 'fragment_not_found', fragment_id: id };
  const mc = pkg.kb.mediaContext(id);
  if (!mc) return { error: 'not_media', fragment_id: id, kind: f.kind };
  return {
    ...mediaItemJson(pkg, f),
    desc: mc.desc,
    captions: mc.captions,
    page_text: mc.pageText,
    siblings: mc.siblings.map((s) => ({ fragment_id: s.fragmentId, kind: s.kind, page: s.page ?? null, desc: s.desc })),
  };
}

/** What `download` sends: a media fragment's stored file, or a document's source file by its root node. */
export function downloadTarget(pkg: ServedPackage, q: URLSearchParams): { file: string; name: string } | { missing: string } {
  const id = q.get('fragment_id');
  if (id) {
    const f = pkg.kb.fragment(id);
    if (!f) return { missing: `no fragment ${id} in package ${pkg.uuid}` };
    const file = pkg.corpus.assetFile(f);
    if (!file) return { missing: `fragment ${id} (${f.kind}) has no stored file` };
    const ext = file.split('.').pop() ?? 'png';
    return { file, name: `page_${f.page ?? 0}_${f.kind}_${f.ordinal}.${ext}` };
  }
  const root = q.get('root_node_id');
  if (!root) return { missing: 'download needs fragment_id or root_node_id' };
  const doc = pkg.docs.find((d) => docFields(pkg, d.id).root_node_id === root);
  if (!doc?.sourcePath) return { missing: `no source file for root node ${root} in package ${pkg.uuid}` };
  return { file: doc.sourcePath, name: doc.file };
}
