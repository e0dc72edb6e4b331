/**
 * Builds the evidence pool from every search so far and traces each merge:
 * the pool before and after, what was offered and what was evicted. The pool
 * is rebuilt from all searches each time (the paper's multi-list ranked
 * merge), so a later search can only add blocks or displace unprotected ones.
 */
import type { KnowledgeBase } from '../pipeline/knowledge-base';
import type { TraceEvent } from '../pipeline/types';
import { blockFormatOf, type AgentSettings } from './agent-settings';
import { buildPool, type EvidencePool, type PoolOptions } from '../answer/pool';
import type { ReadLogEntry, SearchLogEntry } from './tools/context';

export function poolOptions(s: AgentSettings, kb: KnowledgeBase): PoolOptions {
  return {
    kind: s.pool,
    caps: { total: s.poolChars, image: s.imageChars, table: s.tableChars, example: s.exampleChars },
    plainCap: s.plainChars,
    ranking: s.poolRanking,
    format: blockFormatOf(s),
    lookup: (id) => kb.fragment(id),
    docTitle: (id) => kb.title(id),
  };
}

/** Every fragment a set of searches offered (hits and their attached media). */
function offeredIds(searches: readonly SearchLogEntry[]): Set<string> {
  const out = new Set<string>();
  for (const s of searches)
    for (const h of s.hits) {
      out.add(h.fragmentId);
      for (const m of h.media) out.add(m.fragmentId);
    }
  return out;
}

export function mergePool(
  stage: string,
  searches: readonly SearchLogEntry[],
  opts: PoolOptions,
  before: EvidencePool | undefined,
  trace: (e: TraceEvent) => void,
): EvidencePool {
  const pool = buildPool(
    searches.map((s) => ({ query: s.query, by: s.by, hits: s.hits })),
    opts,
  );
  const kept = new Set(pool.blocks.map((b) => b.fragmentId));
  const evictedIds = [...offeredIds(searches)].filter((id) => !kept.has(id));
  const added = pool.blocks.filter((b) => !before?.numberOf.has(b.fragmentId)).map((b) => b.fragmentId);
  trace({
    kind: 'pool',
    stage,
    searches: searches.length,
    before: before ? { blocks: before.stats.blocks, chars: before.stats.chars } : null,
    after: { blocks: pool.stats.blocks, chars: pool.stats.chars, byKind: pool.stats.byKind, trimmed: pool.stats.trimmed },
    added,
    evicted: pool.stats.evicted,
    evictedIds,
    blocks: pool.blocks.map((b) => ({
      n: pool.numberOf.get(b.fragmentId),
      id: b.fragmentId,
      kind: b.kind,
      score: Math.round(b.score * 1e4) / 1e4,
      protected: b.protected,
      via: b.via,
    })),
  });
  return pool;
}

/** The reading notes appended to the pool (what the synthesizer sees after the materials). */
export function readingNotes(reads: readonly ReadLogEntry[]): string[] {
  return reads.map((r) => `[${r.tool}] ${r.note}`);
}

/** The final pool text: materials, then the reading notes (answer-visible is measured on it). */
export function finalPoolText(pool: EvidencePool, notes: readonly string[]): string {
  return notes.length ? `${pool.text}\n\nReading notes:\n${notes.map((n) => `- ${n}`).join('\n')}` : pool.text;
}
