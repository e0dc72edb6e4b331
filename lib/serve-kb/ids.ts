/**
 * The fragment ids `kf serve kb` shows the released runner. The harness's ids are `<document>#<n>`;
 * the runner's evidence pool recognises only ids of the hosted form, `frag_` and lowercase hex (a
 * related-figure line it cannot tie to an id scores 0 when the pool overflows). So a reply names a
 * fragment `frag_` + 16 hex digits of a hash of its harness id: stable (the same id every run, every
 * server), and reversible through a table of the served corpus's ids, built on the first id asked
 * back. Every endpoint that takes an id accepts either form.
 *
 * The harness's own remote view asks for its ids unchanged with the `x-kf-ids: harness` request
 * header (lib/remote-kb/client.ts sends it), so a served index reads back exactly as it is locally.
 */
import * as crypto from 'node:crypto';
import { KfError } from '../util/errors';
export { HARNESS_IDS_HEADER, HARNESS_IDS_VALUE } from '../remote-kb/client';
import type { ServedCorpus } from './corpus';

/** Reply fields that hold a fragment id (at any depth). */
const ID_KEYS = new Set(['fragment_id', 'anchor_fragment_id', 'table_id']);
const SERVED_ID = /^frag_[0-9a-f]{16}$/;

/** Harness id -> served id, as computed (a hash costs microseconds; a reply names some thirty ids). */
const forward = new Map<string, string>();
const FORWARD_MAX = 1 << 20;

/** The id the runner is shown for a harness fragment id. */
export function servedId(harnessId: string): string {
  let s = forward.get(harnessId);
  if (s === undefined) {
    s = `frag_${crypto.createHash('sha256').update(`kf-serve-kb:${harnessId}`).digest('hex').slice(0, 16)}`;
    if (forward.size >= FORWARD_MAX) forward.clear();
    forward.set(harnessId, s);
  }
  return s;
}

const tables = new WeakMap<ServedCorpus, Map<string, string>>();

/** Served id -> harness id over every fragment of the corpus (built once). */
function tableOf(corpus: ServedCorpus): Map<string, string> {
  let t = tables.get(corpus);
  if (t) return t;
  t = new Map();
  for (const d of corpus.documents())
    for (const f of corpus.fragmentsOf(d.id)) {
      const s = servedId(f.id);
      const had = t.get(s);
      if (had !== undefined && had !== f.id)
        throw new KfError('served_id_collision', `fragments ${had} and ${f.id} hash to the same served id ${s}`, 'rename one of the two documents');
      t.set(s, f.id);
    }
  tables.set(corpus, t);
  return t;
}

/** The harness id a request names: a served id mapped back, anything else as given. */
export function harnessId(corpus: ServedCorpus, id: string): string {
  return SERVED_ID.test(id) ? (tableOf(corpus).get(id) ?? id) : id;
}

/** A request's query parameters with any served id mapped back to the harness's. */
export function harnessParams(corpus: ServedCorpus, q: URLSearchParams): URLSearchParams {
  for (const k of ID_KEYS) {
    const v = q.get(k);
    if (v) q.set(k, harnessId(corpus, v.trim()));
  }
  return q;
}

/** Rewrite, in place, every id field of a reply to its served form (an id the corpus does not hold stays as it is). */
export function toServedIds(corpus: ServedCorpus, value: unknown): void {
  if (Array.isArray(value)) {
    for (const v of value) if (v && typeof v === 'object') toServedIds(corpus, v);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (typeof v === 'string') {
      if (ID_KEYS.has(k) && v && corpus.kb.fragment(v)) o[k] = servedId(v);
    } else if (v && typeof v === 'object') toServedIds(corpus, v);
  }
}
