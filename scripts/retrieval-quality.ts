/**
 * Retrieval quality of the index on the text multi-hop dev sets (2Wiki,
 * MuSiQue, HotpotQA from ../shared/bench/text-multihop): R@2, R@5 and
 * all-found@8 for bm25, dense (each offline encoder), hybrid (each fusion) and
 * hybrid+graph (offline kNN similarity edges over the dense vectors).
 *
 *   node --import tsx scripts/retrieval-quality.ts [--sets 2wiki,musique,hotpotqa] [--json] [--out file.json]
 *        [--weights 0.95,0.05] [--depth 40] [--edges-k 5] [--edges-threshold 0.5] [--no-glove] [--sweep]
 *
 * --sweep adds hybrid rows for a range of dense weights (how the default was chosen).
 *
 * A passage's document id is its title (several MuSiQue passages share one).
 * R@k = |gold titles among the documents of the first k hits| / |gold titles|;
 * all-found@8 = share of questions whose gold titles are all within the first 8
 * hits. Only the first search counts; questions without gold titles are skipped.
 * Model-free and deterministic: the numbers are labelled offline.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scriptArgs } from '../lib/util/script-args';
import type { Fragment } from '../lib/corpus/types';
import type { Embedder, FusionMethod, RetrievalMode, SearchHit } from '../lib/index/types';
import { SearchEngine, type EngineOptions } from '../lib/index/engine';
import { CorpusFittedEmbedder } from '../lib/index/embedders/corpus-fitted';
import { GloveSifEmbedder } from '../lib/index/embedders/glove-sif';
import { similarityEdges } from '../lib/index/similarity-edges';
import { defaultFusionWeights } from '../lib/index/fusion';
import { benchDir } from '../lib/util/paths';
import { gitInfo } from '../lib/util/git';
import { KfError, errorMessage } from '../lib/util/errors';

interface SetData {
  name: string;
  passages: { title: string; text: string }[];
  questions: { question: string; gold: string[] }[];
}

const SETS = ['2wiki', 'musique', 'hotpotqa'] as const;

/** A tiny reader of the three raw formats (the normalised loaders live in lib/bench). */
export function readSet(name: string): SetData {
  const dir = benchDir('text-multihop');
  const file = (f: string) => path.join(dir, f);
  const read = (f: string): unknown => {
    try {
      return JSON.parse(fs.readFileSync(file(f), 'utf8'));
    } catch (e) {
      throw new KfError(
        'bench_missing',
        `cannot read ${file(f)}: ${(e as Error).message}`,
        'put the benchmark data in ../shared/bench/text-multihop (or set KF_SHARED)',
        { concerns: file(f) },
      );
    }
  };
  const rawCorpus = read(`${name}_corpus.json`);
  // 2Wiki/MuSiQue: [{title, text}]; HotpotQA: {title: [sentences]}.
  const passages = Array.isArray(rawCorpus)
    ? (rawCorpus as { title: string; text: string }[]).map((p) => ({ title: p.title, text: p.text }))
    : Object.entries(rawCorpus as Record<string, string[]>).map(([title, sents]) => ({ title, text: sents.join('') }));
  const rawQs = read(`${name}_questions.dev.json`) as Record<string, unknown>[];
  const questions = rawQs.map((q) => {
    let gold: string[];
    if (Array.isArray(q.gold_titles))
      gold = q.gold_titles as string[]; // 2Wiki
    else if (Array.isArray(q.paragraphs))
      gold = (q.paragraphs as { title: string; is_supporting: boolean }[]).filter((p) => p.is_supporting).map((p) => p.title); // MuSiQue
    else if (Array.isArray(q.supporting_facts))
      gold = (q.supporting_facts as [string, number][]).map((f) => f[0]); // HotpotQA
    else gold = [];
    return { question: String(q.question), gold: [...new Set(gold)] };
  });
  return { name, passages, questions: questions.filter((q) => q.gold.length > 0) };
}

/** Passages -> fragments: document = title, section = [title], neighbours within a title in corpus order. */
export function passageFragments(passages: { title: string; text: string }[]): Fragment[] {
  const count = new Map<string, number>();
  const frags: Fragment[] = passages.map((p) => {
    const n = count.get(p.title) ?? 0;
    count.set(p.title, n + 1);
    return { id: `${p.title}#${n}`, docId: p.title, kind: 'text', text: p.text, section: [p.title], ordinal: n, attached: [] };
  });
  const byDoc = new Map<string, Fragment[]>();
  for (const f of frags) (byDoc.get(f.docId) ?? byDoc.set(f.docId, []).get(f.docId)!).push(f);
  for (const list of byDoc.values()) {
    for (let i = 0; i < list.length; i++) {
      if (i > 0) list[i].prev = list[i - 1].id;
      if (i + 1 < list.length) list[i].next = list[i + 1].id;
    }
  }
  return frags;
}

export interface Recall {
  r2: number;
  r5: number;
  allFound8: number;
}

export function recallOf(rankings: string[][], golds: string[][]): Recall {
  let r2 = 0,
    r5 = 0,
    af = 0;
  rankings.forEach((docs, i) => {
    const g = new Set(golds[i]);
    const at = (k: number) => new Set(docs.slice(0, k).filter((d) => g.has(d))).size / g.size;
    r2 += at(2);
    r5 += at(5);
    if (at(8) === 1) af++;
  });
  const n = rankings.length || 1;
  return { r2: (100 * r2) / n, r5: (100 * r5) / n, allFound8: (100 * af) / n };
}

interface Row {
  set: string;
  retriever: string;
  mode: RetrievalMode;
  encoder?: string;
  fusion?: string;
  r2: number;
  r5: number;
  allFound8: number;
  questions: number;
}

async function main(): Promise<void> {
  const { values } = scriptArgs(__filename, {
    options: {
      sets: { type: 'string', default: SETS.join(',') },
      json: { type: 'boolean', default: false },
      out: { type: 'string' },
      weights: { type: 'string' },
      depth: { type: 'string', default: '40' },
      'edges-k': { type: 'string', default: '5' },
      'edges-threshold': { type: 'string', default: '0.5' },
      'no-glove': { type: 'boolean', default: false },
      sweep: { type: 'boolean', default: false },
    },
  });
  const sets = String(values.sets)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of sets) if (!(SETS as readonly string[]).includes(s)) throw new KfError('bad_option', `unknown set "${s}"`, `use ${SETS.join(', ')}`);
  if (!fs.existsSync(benchDir('text-multihop'))) {
    console.log(`skip: ${benchDir('text-multihop')} is absent (benchmark data lives in ../shared/bench; set KF_SHARED)`);
    return;
  }
  const depth = Number(values.depth);
  const weights = values.weights
    ? (() => {
        const [b, d] = String(values.weights).split(',').map(Number);
        return { bm25: b, dense: d };
      })()
    : undefined;
  const edgeK = Number(values['edges-k']);
  const edgeT = Number(values['edges-threshold']);
  const rows: Row[] = [];
  const log = (s: string) => {
    if (!values.json) console.log(s);
  };

  for (const name of sets) {
    const t0 = Date.now();
    const data = readSet(name);
    const frags = passageFragments(data.passages);
    const texts = frags.map((f) => `${f.section.join(' / ')}\n${f.text}`);
    const golds = data.questions.map((q) => q.gold);
    const queries = data.questions.map((q) => q.question);
    const docsOf = (hits: SearchHit[]) => hits.map((h) => h.docId);
    const run = async (engine: SearchEngine, mode: RetrievalMode, qvecs: Float32Array[], fusion?: FusionMethod) => {
      const out: string[][] = [];
      for (let i = 0; i < queries.length; i++)
        out.push(
          docsOf(
            (await engine.search(queries[i], { mode, topk: 8, depth, fusion, queryVector: mode === 'bm25' ? undefined : qvecs[i], withContext: false })).hits,
          ),
        );
      return recallOf(out, golds);
    };
    const push = (retriever: string, mode: RetrievalMode, r: Recall, extra: Partial<Row> = {}) => {
      rows.push({ set: name, retriever, mode, ...r, questions: queries.length, ...extra });
      log(
        `  ${name.padEnd(9)} ${retriever.padEnd(52)} R@2 ${r.r2.toFixed(1).padStart(5)}  R@5 ${r.r5.toFixed(1).padStart(5)}  all@8 ${r.allFound8.toFixed(1).padStart(5)}`,
      );
    };
    log(`${name}: ${data.passages.length} passages, ${queries.length} questions`);

    // Corpus-fitted encoder: the default offline index.
    const fitted = await CorpusFittedEmbedder.fit(texts);
    const opts: Omit<EngineOptions, 'embedder'> = weights ? { fusionWeights: weights } : {};
    const engine = SearchEngine.create({ embedder: fitted, ...opts });
    await engine.addFragments(frags, await fitted.embed(texts));
    const qv = await fitted.embed(queries);
    push('bm25', 'bm25', await run(engine, 'bm25', qv));
    push(`dense (${fitted.id.split(':')[0]}, chars)`, 'dense', await run(engine, 'dense', qv), { encoder: fitted.id });
    {
      // The words+chars variant: a stronger dense-only retriever, a worse fusion partner.
      const wc = await CorpusFittedEmbedder.fit(texts, { charWeight: 0.4 });
      const we = SearchEngine.create({ embedder: wc });
      await we.addFragments(frags, await wc.embed(texts));
      push(`dense (${wc.id.split(':')[0]}, words+chars)`, 'dense', await run(we, 'dense', await wc.embed(queries)), { encoder: `${wc.id} charWeight=0.4` });
    }
    if (!values['no-glove']) {
      const glove = new GloveSifEmbedder();
      const ge = SearchEngine.create({ embedder: glove as Embedder });
      await ge.addFragments(frags, await glove.embed(texts));
      push('dense (glove-sif-100d)', 'dense', await run(ge, 'dense', await glove.embed(queries)), { encoder: glove.id });
    }
    const w = weights ?? defaultFusionWeights(fitted.id);
    const wl = `${w.bm25}/${w.dense}`;
    push(`hybrid weighted ${wl}`, 'hybrid', await run(engine, 'hybrid', qv, 'weighted'), { encoder: fitted.id, fusion: `weighted ${wl}` });
    push(`hybrid rrf ${wl}`, 'hybrid', await run(engine, 'hybrid', qv, 'rrf'), { encoder: fitted.id, fusion: `rrf ${wl}` });
    push(
      `hybrid rrf 0.5/0.5 (naive)`,
      'hybrid',
      await (async () => {
        engine.configureFusion({ weights: { bm25: 0.5, dense: 0.5 } });
        const r = await run(engine, 'hybrid', qv, 'rrf');
        engine.configureFusion({ weights: w });
        return r;
      })(),
      { encoder: fitted.id, fusion: 'rrf 0.5/0.5' },
    );
    push(
      `hybrid weighted ${wl} adaptive`,
      'hybrid',
      await (async () => {
        engine.configureFusion({ adaptive: true });
        const r = await run(engine, 'hybrid', qv, 'weighted');
        engine.configureFusion({ adaptive: false });
        return r;
      })(),
      { encoder: fitted.id, fusion: `weighted ${wl} adaptive` },
    );
    if (values.sweep) {
      for (const d of [0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5]) {
        engine.configureFusion({ weights: { bm25: 1 - d, dense: d } });
        push(`  sweep weighted ${(1 - d).toFixed(2)}/${d}`, 'hybrid', await run(engine, 'hybrid', qv, 'weighted'), {
          encoder: fitted.id,
          fusion: `weighted ${(1 - d).toFixed(2)}/${d}`,
        });
      }
      engine.configureFusion({ weights: w });
    }
    const t1 = Date.now();
    const edges = similarityEdges(engine, { k: edgeK, threshold: edgeT });
    engine.setRelations(edges);
    push(`hybrid+graph weighted ${wl} (${edges.length} kNN edges)`, 'hybrid+graph', await run(engine, 'hybrid+graph', qv, 'weighted'), {
      encoder: fitted.id,
      fusion: `weighted ${wl}`,
    });
    log(`  (kNN edges k=${edgeK}, cos>=${edgeT}: ${((Date.now() - t1) / 1000).toFixed(1)} s)`);
    log(`  (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  }
  const result = {
    script: 'retrieval-quality',
    backend: 'offline',
    git: gitInfo(),
    depth,
    weights: weights ?? 'default',
    edges: { k: edgeK, threshold: edgeT },
    rows,
  };
  if (values.out) fs.writeFileSync(String(values.out), JSON.stringify(result, null, 2) + '\n');
  if (values.json) console.log(JSON.stringify(result));
}

if (require.main === module) {
  main().catch((e) => {
    console.error(`error: ${errorMessage(e)}`);
    process.exit(1);
  });
}
