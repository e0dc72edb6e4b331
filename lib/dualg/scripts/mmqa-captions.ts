/**
 * MMQA LLaVA captions as micro facts of image assets (issue 11, micro graph: "captions such as the MMQA
 * LLaVA captions"). What ships in ../shared/bench/mmqa allows an image-only setting: the dev questions
 * whose gold is image-only (ImageQ, ImageListQ), each with its own candidate images (MMQA's setting,
 * 3-15 per question), every image a document titled by the Wikipedia entity it illustrates, with its
 * machine caption. MMQA's texts and tables are not here, so this is not the MMQA benchmark itself.
 *
 * Each image is one image fragment (text = its title; no pixels here). Rows, per question ranked within
 * its candidates (restriction `docIds`, as `kf eval retrieval` does for per-question pools):
 *   bm25 title                 BM25 over the titles (the lexical stand-in for the hybrid pool: offline,
 *                              no embedding model; the same pool under every dualg row)
 *   bm25 title+caption         BM25 over title + caption text (what the captions carry at all)
 *   dualg no captions          dualg-heuristic on the graph of the image documents (no image facts)
 *   dualg caption facts        the same, the captions attached to their image ids as micro facts
 *                              (GraphBuildOptions.captions -> micro.ts imageFacts)
 * Printed: R@1, R@2, R@5 (share of gold images in the top k), MRR of the first gold, per question type,
 * and sign tests of "caption facts" vs "no captions". Nothing is trained or tuned here.
 *
 *   node --import tsx lib/dualg/scripts/mmqa-captions.ts [--limit N] [--pool candidates|all]
 */
import { scriptArgs } from '../../util/script-args';
import type { Fragment } from '../../corpus/types';
import { loadMmqa } from '../../bench/mmqa';
import type { Question } from '../../bench/types';
import { MMQA } from '../../bench/benchmarks/mmqa';
import { buildDualGraph, type GraphSource } from '../graph/build';
import type { DualGraph } from '../graph/types';
import { searcherParts } from '../retriever';
import { searcherSettings } from '../query/searcher-settings';
import { DualgSearcher } from '../query/searcher';
import { matchMicro, MicroIndex } from '../query/micro-match';
import { captionPhrases } from '../offline/caption-facts';
import { Bm25Index } from '../../index/bm25';
import { tokenize } from '../../index/tokenize';
import type { Retriever, SearchHit } from '../../index/types';
import type { KnowledgeBase } from '../../pipeline/knowledge-base';
import { retrieverKnowledgeBase } from '../../pipeline/retriever-knowledge-base';
import { signTestP } from '../../eval/binomial';
import { md5 } from '../../util/hash';
import { makeRng } from '../../util/rng';

interface ImageDoc {
  id: string;
  title: string;
  caption: string;
}

const KS = [1, 2, 5] as const;
const WHAT_IF_CAPTIONS = 'what-if: content query nodes, caption facts';

/** One image fragment per image document; `withCaption` puts the caption into the fragment's text. */
function imageFragment(d: ImageDoc, withCaption: boolean): Fragment {
  return {
    id: `${d.id}#0`,
    docId: d.id,
    kind: 'image',
    text: withCaption ? `${d.title}. ${d.caption}` : d.title,
    section: [d.title],
    ordinal: 0,
    attached: [],
  };
}

function graphSource(docs: ImageDoc[]): GraphSource {
  const frags = new Map(docs.map((d) => [d.id, [imageFragment(d, false)]]));
  return {
    id: 'mmqa-images',
    fingerprint: md5(docs.map((d) => `${d.id}\u0000${d.title}`).join('\u0001')),
    documents: () => docs.map((d) => ({ id: d.id, title: d.title })),
    fragmentsOf: (id) => frags.get(id) ?? [],
  };
}

/** BM25 over the fragments, as a Retriever restricted by docIds (the lexical pool of every row). */
function bm25Retriever(frags: Fragment[]): Retriever {
  const index = new Bm25Index();
  frags.forEach((f, slot) => index.add(slot, tokenize(f.text)));
  const slotOf = new Map(frags.map((f, i) => [f.docId, i]));
  return {
    async search(query, opts = {}) {
      const filter = opts.docIds ? new Uint8Array(frags.length) : null;
      for (const id of opts.docIds ?? []) if (slotOf.has(id)) filter![slotOf.get(id)!] = 1;
      const r = index.search(index.resolveQuery(tokenize(query)), opts.topk ?? 10, filter);
      const hits: SearchHit[] = [...r.slots].map((slot, i) => {
        const f = frags[slot];
        const score = r.scores[i];
        return {
          fragmentId: f.id,
          docId: f.docId,
          kind: f.kind,
          rank: i + 1,
          score,
          scores: { bm25: score },
          via: 'bm25',
          text: f.text,
          section: f.section,
          media: [],
        };
      });
      return { query, hits, timings: { embedMs: 0, bm25Ms: 0, hnswMs: 0, fusionMs: 0, expansionMs: 0, contextMs: 0, roundMs: 0 } };
    },
  };
}

function knowledgeBase(frags: Fragment[]): KnowledgeBase {
  const byId = new Map(frags.map((f) => [f.id, f]));
  return retrieverKnowledgeBase(bm25Retriever(frags), { id: 'mmqa-images', fragment: (id) => byId.get(id) });
}

type Ranker = (q: Question, pool: string[] | undefined) => Promise<string[]>;

function bm25Ranker(kb: KnowledgeBase): Ranker {
  return async (q, pool) => docOrder((await kb.search(q.question, { mode: 'hybrid', k: 20, docIds: pool })).hits);
}

function dualgRanker(g: DualGraph, kb: KnowledgeBase): Ranker {
  const searcher = new DualgSearcher(searcherParts(g), searcherSettings({}, 'heuristic'), 'dualg-heuristic');
  return async (q, pool) => docOrder((await searcher.search(q.question, { k: 20, docIds: pool }, kb)).hits);
}

/**
 * What-if (script-local, not the shipped query side): the micro tier reached by the question's content phrases
 * ("flag", "building", "lion") as query nodes, which the shipped searcher does not use (its query nodes are linked
 * names and capitalised entities). Score = 1 / (1 + rank in the dualg list) + s_micro (node-level boosting): a
 * plain sum, no weight tuned.
 */
function contentNodeRanker(g: DualGraph, kb: KnowledgeBase): Ranker {
  const micro = new MicroIndex(g.micro);
  const base = dualgRanker(g, kb);
  return async (q, pool) => {
    const names = captionPhrases(q.question).map((p) => p.phrase!);
    const s = matchMicro(micro, [], names).sMicro;
    const order = await base(q, pool);
    const sMicro = (id: string) => s.get(docIndexOf(g).get(id) ?? -1) ?? 0;
    const all = [...new Set([...order, ...(pool ?? []).filter((id) => sMicro(id) > 0)])];
    const score = (id: string, i: number) => (i < order.length ? 1 / (1 + i) : 0) + sMicro(id);
    return all
      .map((id, i) => ({ id, i, s: score(id, i) }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .map((x) => x.id);
  };
}

const docIndexes = new WeakMap<DualGraph, Map<string, number>>();
function docIndexOf(g: DualGraph): Map<string, number> {
  let m = docIndexes.get(g);
  if (!m) docIndexes.set(g, (m = new Map(g.docs.map((d, i) => [d.id, i]))));
  return m;
}

function docOrder(hits: { docId: string }[]): string[] {
  return [...new Set(hits.map((h) => h.docId))];
}

/** R@k per k and reciprocal rank of the first gold document. */
function scoreOne(ranked: string[], gold: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of KS) out[`R@${k}`] = gold.filter((g) => ranked.slice(0, k).includes(g)).length / gold.length;
  const first = ranked.findIndex((d) => gold.includes(d));
  out.MRR = first < 0 ? 0 : 1 / (first + 1);
  return out;
}

/**
 * The ranked list, then the pool's other documents in a seeded random order (the same for every row). MMQA lists
 * a question's candidates gold-first more often than not, so the pool order must never break ties.
 */
function fillUp(ranked: string[], pool: string[], seed: string): string[] {
  const seen = new Set(ranked);
  return [...ranked, ...makeRng(`mmqa-fill/${seed}`).shuffle(pool.filter((id) => !seen.has(id)))];
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

async function main(): Promise<void> {
  const { values } = scriptArgs(__filename, { options: { limit: { type: 'string' }, pool: { type: 'string', default: 'candidates' } } });
  if (values.pool !== 'candidates' && values.pool !== 'all') throw new Error(`--pool must be candidates or all, got ${values.pool}`);
  const data = loadMmqa(MMQA.defaultPaths('dev'), { corpus: 'candidates' });
  const questions = data.questions.slice(0, values.limit ? Number(values.limit) : undefined);
  const docs: ImageDoc[] = (data.passages ?? []).map((p) => ({ id: p.id, title: p.title || p.id, caption: p.text }));
  const captions = new Map(docs.map((d) => [`${d.id}#0`, d.caption]));
  const titleFrags = docs.map((d) => imageFragment(d, false));
  const titleKb = knowledgeBase(titleFrags);
  const source = graphSource(docs);
  const plain = await buildDualGraph(source);
  const captioned = await buildDualGraph(source, { captions });
  console.log(
    `MMQA dev image-only questions: ${questions.length}; images (union of their candidates): ${docs.length}; ` +
      `micro facts without captions ${plain.micro.length}, with caption facts ${captioned.micro.length}; pool: ${values.pool}`,
  );
  const rows: [string, Ranker][] = [
    ['bm25 title', bm25Ranker(titleKb)],
    ['bm25 title+caption', bm25Ranker(knowledgeBase(docs.map((d) => imageFragment(d, true))))],
    ['dualg no captions', dualgRanker(plain, titleKb)],
    ['dualg caption facts', dualgRanker(captioned, titleKb)],
    ['what-if: content query nodes, no captions', contentNodeRanker(plain, titleKb)],
    [WHAT_IF_CAPTIONS, contentNodeRanker(captioned, titleKb)],
  ];
  const per = new Map<string, Record<string, number>[]>();
  for (const [name, rank] of rows) {
    const scores: Record<string, number>[] = [];
    for (const q of questions) {
      const pool = values.pool === 'all' ? undefined : (q.meta.candidateImages as string[]);
      scores.push(scoreOne(fillUp(await rank(q, pool), pool ?? [], q.id), q.goldDocs ?? []));
    }
    per.set(name, scores);
  }
  printTable(questions, per);
  printSignTests('dualg caption facts vs dualg no captions', per.get('dualg caption facts')!, per.get('dualg no captions')!);
  printSignTests('what-if content nodes: caption facts vs no captions', per.get(WHAT_IF_CAPTIONS)!, per.get('dualg no captions')!);
}

function printTable(questions: Question[], per: Map<string, Record<string, number>[]>): void {
  const types = ['all', ...new Set(questions.map((q) => String(q.type ?? '?')))];
  const typeOf = (q: Question) => String(q.type ?? '?');
  const metrics = [...KS.map((k) => `R@${k}`), 'MRR'];
  for (const t of types) {
    const idx = questions.map((q, i) => (t === 'all' || typeOf(q) === t ? i : -1)).filter((i) => i >= 0);
    console.log(`\n${t} (${idx.length} questions)\n| row | ${metrics.join(' | ')} |\n|---|${metrics.map(() => '---').join('|')}|`);
    for (const [name, scores] of per) console.log(`| ${name} | ${metrics.map((m) => mean(idx.map((i) => scores[i][m])).toFixed(3)).join(' | ')} |`);
  }
}

function printSignTests(title: string, a: Record<string, number>[], b: Record<string, number>[]): void {
  console.log(`\n${title} (paired sign test, won/lost/tied, p):`);
  for (const m of ['R@1', 'R@2', 'MRR']) {
    const won = a.filter((x, i) => x[m] > b[i][m]).length;
    const lost = a.filter((x, i) => x[m] < b[i][m]).length;
    console.log(`  ${m}: ${won}/${lost}/${a.length - won - lost}, p = ${signTestP(won, lost).toPrecision(2)}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
