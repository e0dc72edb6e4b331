/**
 * The offline bridge judge (spec job 3) for title-indexed corpora: it reads the
 * pool's material blocks (source title + text), finds the first-hop documents
 * (about an entity of the question) and the next-hop names in their text, and
 * asks for the ones no found document covers: a question entity never found,
 * or a bridge name ("directed by X") whose own document is missing. When the
 * pool has no first-hop document it falls back to the entity-coverage judge.
 */
import { judge as coverageJudge, type JudgeReply } from './judge';
import { bridgeNames, anchorHits, uncoveredEntities, type FoundHit } from './bridge-entities';
import type { JudgeTask } from './tasks';

/** Text material blocks of a rendered pool: "[N] (text · Title › Section · p.N · id=...)" + text. */
export function poolBlocks(pool: string): FoundHit[] {
  const out: FoundHit[] = [];
  const re = /^\[\d+\] \((?:text|worked example) · (.+?) · id=[^)\n]+\)\n([\s\S]*?)(?=\n\n\[(?:fig )?\d+\] |$)/gm;
  for (const m of pool.matchAll(re)) {
    const title = m[1]
      .split(' › ')[0]
      .replace(/ · p\.\d+$/, '')
      .trim();
    out.push({ doc: title, text: m[2] });
  }
  return out;
}

export function bridgeJudge(task: JudgeTask): JudgeReply {
  const hits = poolBlocks(task.pool ?? '');
  if (!hits.length || !anchorHits(task.question, hits).length) return coverageJudge(task);
  const ran = new Set((task.queriesRun ?? []).map((q) => q.trim().toLowerCase()));
  const missing = uncoveredEntities(task.question, hits).filter((e) => !ran.has(e.toLowerCase()));
  const bridges = bridgeNames(task.question, hits).filter((b) => !ran.has(b.toLowerCase()));
  const queries = [...missing, ...bridges].slice(0, 2);
  if (!queries.length) {
    return {
      need_more: false,
      bridge_entities: [],
      queries: [],
      reason: 'every entity of the question and every next-hop name found has its own document in the pool',
    };
  }
  const reason = missing.length
    ? `no document about ${missing.map((e) => `"${e}"`).join(', ')} was found`
    : `the materials name ${bridges.slice(0, 2).join(' and ')} for the next hop but hold no document about ${bridges.length > 1 ? 'them' : 'it'}`;
  return { need_more: true, bridge_entities: [...missing, ...bridges].slice(0, 3), queries, reason: reason.slice(0, 200) };
}
