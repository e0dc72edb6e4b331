/**
 * Where the DualG heuristic's misses come from on a text multi-hop benchmark (issue 18, item 6): for every dev
 * question with a gold passage outside the first k, one category, counted (never used to set a constant):
 *   no-seed      no linked name is strong enough (idf below minSeedIdf): the hybrid or its pseudo-seeds ranked;
 *   seed-miss    strong seeds, but no gold passage is titled by, or mentions, a linked entity (wrong first hop);
 *   unreached    a gold passage the graph never scored (the chain broke before it);
 *   ranked-low   every gold passage was scored by the graph, one of them ranked below k.
 * Usage: node --import tsx lib/dualg/scripts/misses.ts --bench musique --index <dir> [--k 5] [--settings JSON] [--list]
 */
import { loadBench } from '../../bench/registry';
import { assertBenchmarkName } from '../../bench/names';
import { goldUnits } from '../../eval/retrieval';
import { openIndex } from '../../index/open';
import { engineKnowledgeBase } from '../../pipeline/index-view';
import { graphFor } from '../graph-for';
import { searcherParts } from '../retriever';
import { searcherSettings } from '../query/searcher-settings';
import { DualgSearcher } from '../query/searcher';
import { linkQuery } from '../query/link';
import { relationWords } from '../query/relation-words';
import { heuristicScores } from '../query/heuristic-scorer';
import { scriptArgs } from '../../util/script-args';

async function main(): Promise<void> {
  const { values: a } = scriptArgs(__filename, {
    options: { bench: { type: 'string' }, index: { type: 'string' }, k: { type: 'string' }, settings: { type: 'string' }, list: { type: 'boolean' } },
  });
  const bench = assertBenchmarkName(a.bench ?? 'musique', '--bench');
  const k = Number(a.k ?? 5);
  const idx = await openIndex(a.index!);
  const kb = engineKnowledgeBase(idx, { forced: { withContext: false } });
  const g = await graphFor({ indexDir: idx.dir, settings: {} });
  const parts = searcherParts(g);
  const s = searcherSettings(a.settings ? (JSON.parse(a.settings) as Record<string, unknown>) : {}, 'heuristic');
  const searcher = new DualgSearcher(parts, s, 'dualg');
  const docIndex = new Map(parts.docIds.map((id, i) => [id, i]));
  const maxIdf = Math.log(1 + Math.max(1, g.docs.length));
  const counts: Record<string, number> = { hit: 0, 'no-seed': 0, 'seed-miss': 0, unreached: 0, 'ranked-low': 0 };
  const hops: Record<string, Record<string, number>> = {};
  for (const q of loadBench(bench).questions) {
    const gold = goldUnits(q, 'document');
    if (!gold.length) continue;
    const r = await searcher.search(q.question, { k: 20 }, kb);
    const ranks = gold.map((d) => r.hits.findIndex((h) => h.docId === d));
    const link = linkQuery(parts.view, q.question, undefined, undefined, s.partialLink);
    const strong = link.seeds.filter((x) => x.weight >= s.minSeedIdf * maxIdf);
    const scored = heuristicScores(parts.view, link.seeds, relationWords(q.question, link.covered), s.heuristic).docScores;
    const goldIdx = gold.map((d) => docIndex.get(d) ?? -1);
    const seedDocs = new Set(strong.flatMap((x) => g.entityDocs[x.entity].map((e) => e.doc)));
    let cat = 'hit';
    if (ranks.some((x) => x < 0 || x >= k)) {
      if (!strong.length) cat = 'no-seed';
      else if (!goldIdx.some((d) => seedDocs.has(d))) cat = 'seed-miss';
      else if (goldIdx.some((d) => !scored.has(d))) cat = 'unreached';
      else cat = 'ranked-low';
    }
    counts[cat]++;
    const shape = `${gold.length} gold`;
    hops[shape] ??= {};
    hops[shape][cat] = (hops[shape][cat] ?? 0) + 1;
    if (a.list && cat !== 'hit')
      console.error(
        JSON.stringify({ cat, q: q.question, seeds: link.seeds.map((x) => x.surface), ranks, gold: gold.map((d) => g.docs[docIndex.get(d)!]?.title) }),
      );
  }
  console.log(JSON.stringify({ bench, k, counts, byGold: hops }));
}

void main();
