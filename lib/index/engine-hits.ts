/**
 * Search hits as callers see them: the text a fragment is indexed under, and a
 * ranked slot turned into a hit with its neighbours' text (context) and the
 * media attached to it. O(hits * (context chars + attached media)) per search.
 */
import type { Fragment } from '../corpus/types';
import type { SearchHit } from './types';
import type { Listed } from './graph-expansion';

/** What a hit needs from the engine: the fragment at a slot, fragments by id, the context size. */
export interface HitSource {
  fragAt(slot: number): Fragment;
  fragment(id: string): Fragment | undefined;
  contextChars: number;
}

export function defaultIndexText(f: Fragment): string {
  const parts: string[] = [];
  const sec = (f.section ?? []).filter((s) => s && s.trim());
  if (sec.length) parts.push(sec.join(' / '));
  if (f.label && !f.text.includes(f.label)) parts.push(f.label);
  if (f.caption && !f.text.includes(f.caption)) parts.push(f.caption);
  parts.push(f.text);
  return parts.join('\n');
}

/** Trim to about `n` chars at a word boundary; `fromEnd` keeps the end (text just before a hit). */
export function trimContext(text: string, n: number, fromEnd = false): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= n) return t;
  if (fromEnd) {
    let cut = t.slice(t.length - n);
    const sp = cut.indexOf(' ');
    if (sp > 0 && sp < n / 3) cut = cut.slice(sp + 1);
    return '…' + cut;
  }
  let cut = t.slice(0, n);
  const sp = cut.lastIndexOf(' ');
  if (sp > (2 * n) / 3) cut = cut.slice(0, sp);
  return cut + '…';
}

/** A ranked (or expanded) slot as a hit, ranked `rank`; with context: neighbours' text and attached media. */
export function makeHit(r: Listed, rank: number, withContext: boolean, src: HitSource): SearchHit {
  const f = src.fragAt(r.slot);
  const scores: SearchHit['scores'] = {};
  if (r.bm25 !== undefined) scores.bm25 = r.bm25;
  if (r.dense !== undefined) scores.dense = r.dense;
  if (r.fused !== undefined) scores.fused = r.fused;
  const hit: SearchHit = {
    fragmentId: f.id,
    docId: f.docId,
    kind: f.kind,
    rank,
    score: r.score,
    scores,
    via: r.via,
    text: f.text,
    page: f.page,
    section: f.section ?? [],
    media: [],
  };
  if (r.anchorId !== undefined) {
    hit.anchorId = r.anchorId;
    hit.relation = r.relation;
  }
  if (withContext) {
    const n = src.contextChars;
    const prev = f.prev ? src.fragment(f.prev) : undefined;
    const next = f.next ? src.fragment(f.next) : undefined;
    if (n > 0 && (prev || next)) {
      hit.context = {};
      if (prev) hit.context.prev = trimContext(prev.text, n, true);
      if (next) hit.context.next = trimContext(next.text, n);
    }
    if (f.kind === 'text' || f.kind === 'example') {
      for (const id of f.attached ?? []) {
        const m = src.fragment(id);
        if (m) hit.media.push({ fragmentId: m.id, kind: m.kind, label: m.label, caption: m.caption, asset: m.media });
      }
    } else {
      hit.media.push({ fragmentId: f.id, kind: f.kind, label: f.label, caption: f.caption, asset: f.media });
    }
  }
  return hit;
}
