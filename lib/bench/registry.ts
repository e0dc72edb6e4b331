/**
 * One door to every loader: `defaultPaths(name)` says where the files live
 * under ../shared/bench (benchDir()), `loadBenchmark(name, paths)` loads them.
 * Loaders only ever see explicit paths, so a held-back file in the same format
 * (`*.holdout.json`) is loaded by passing its path (or `split: 'holdout'`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BenchmarkData } from './types';
import { type BenchmarkName, assertBenchmarkName } from './names';
import { loadMmlongbench, type MmlongbenchPaths } from './mmlongbench';
import { load2Wiki, loadHotpotqa, loadMusique, type TextMultihopOptions, type TextMultihopPaths } from './text-multihop';
import { loadMmqa, type MmqaOptions, type MmqaPaths } from './mmqa';
import { loadM3docvqa, type M3docvqaPaths } from './m3docvqa';
import { loadMultihopRag, type MultihopRagPaths } from './multihop-rag';
import { loadWebqa, type WebqaOptions, type WebqaPaths } from './webqa';
import { loadScienceqa, type ScienceqaOptions, type ScienceqaPaths } from './scienceqa';
import { loadDemo, type DemoPaths } from './demo';
import { benchDir, repoRoot } from '../util/paths';
import { KfError } from '../util/errors';

export interface BenchPathsByName {
  'mmlongbench-doc': MmlongbenchPaths;
  m3docvqa: M3docvqaPaths;
  mmqa: MmqaPaths;
  'multihop-rag': MultihopRagPaths;
  '2wiki': TextMultihopPaths;
  musique: TextMultihopPaths;
  hotpotqa: TextMultihopPaths;
  webqa: WebqaPaths;
  scienceqa: ScienceqaPaths;
  demo: DemoPaths;
}

export type BenchPaths = BenchPathsByName[BenchmarkName];

/** Loader options (each loader reads the keys it knows). */
export type LoadOptions = TextMultihopOptions & MmqaOptions & { split?: string } & Omit<WebqaOptions, 'split'> & Omit<ScienceqaOptions, 'split'>;

const existing = (p: string): string | undefined => (fs.existsSync(p) ? p : undefined);

/**
 * Where each benchmark's files are by default. `split: 'holdout'` swaps `.dev.`
 * for `.holdout.` in file names (the held-back part ships in the same format).
 * Optional parts (PDF folders, corpora absent here) are set only when they exist.
 */
export function defaultPaths<N extends BenchmarkName>(name: N, opts: { split?: 'dev' | 'holdout' } = {}): BenchPathsByName[N] {
  const sw = (p: string) => (opts.split === 'holdout' ? p.replace(/\.dev\./, '.holdout.') : p);
  const b = (...parts: string[]) => benchDir(...parts);
  const byName: { [K in BenchmarkName]: () => BenchPathsByName[K] } = {
    'mmlongbench-doc': () => ({ samples: sw(b('mmlongbench-doc', 'samples.dev.json')), documents: existing(b('mmlongbench-doc', 'documents')) }),
    // M3DocVQA's questions ARE the MMQA dev questions; the PDFs are not shipped here.
    m3docvqa: () => ({ questions: sw(b('mmqa', 'MMQA_dev.dev.jsonl.gz')), pdfs: existing(b('m3docvqa', 'pdfs_dev')) }),
    mmqa: () => ({ questions: sw(b('mmqa', 'MMQA_dev.dev.jsonl.gz')), images: b('mmqa', 'MMQA_images.jsonl.gz'), captions: b('mmqa', 'image_captions_llava.json') }),
    'multihop-rag': () => ({
      queries: b('multihop-rag', opts.split === 'holdout' ? 'queries.holdout.json' : 'queries500.json'),
      groundTruth: b('multihop-rag', opts.split === 'holdout' ? 'ground_truth.holdout.json' : 'ground_truth500.json'),
      corpus: existing(b('multihop-rag', 'corpus.json')),
      mdIndex: existing(b('knowforge-subsets', 'mhr_md_index.json')),
    }),
    '2wiki': () => ({ questions: sw(b('text-multihop', '2wiki_questions.dev.json')), corpus: b('text-multihop', '2wiki_corpus.json') }),
    musique: () => ({ questions: sw(b('text-multihop', 'musique_questions.dev.json')), corpus: b('text-multihop', 'musique_corpus.json') }),
    hotpotqa: () => ({ questions: sw(b('text-multihop', 'hotpotqa_questions.dev.json')), corpus: b('text-multihop', 'hotpotqa_corpus.json') }),
    webqa: () => ({ data: b('webqa', 'WebQA_train_val.json') }),
    scienceqa: () => ({ problems: b('scienceqa', 'problems.json'), splits: existing(b('scienceqa', 'pid_splits.json')), images: existing(b('scienceqa', 'images')) }),
    // The default preset's world (lib/demo writes data/demo/<preset>/{questions.json,corpus/}).
    demo: () => ({ questions: path.join(repoRoot(), 'data', 'demo', 'default', 'questions.json'), corpus: existing(path.join(repoRoot(), 'data', 'demo', 'default', 'corpus')) }),
  };
  return byName[name]();
}

/** Load a benchmark from explicit paths (default: defaultPaths(name)). */
export function loadBenchmark<N extends BenchmarkName>(name: N, paths?: Partial<BenchPathsByName[N]>, opts: LoadOptions = {}): BenchmarkData {
  assertBenchmarkName(name);
  const p = { ...defaultPaths(name), ...(paths ?? {}) } as BenchPathsByName[N];
  switch (name) {
    case 'mmlongbench-doc': return loadMmlongbench(p as MmlongbenchPaths);
    case 'm3docvqa': return loadM3docvqa(p as M3docvqaPaths);
    case 'mmqa': return loadMmqa(p as MmqaPaths, opts);
    case 'multihop-rag': return loadMultihopRag(p as MultihopRagPaths);
    case '2wiki': return load2Wiki(p as TextMultihopPaths, opts);
    case 'musique': return loadMusique(p as TextMultihopPaths, opts);
    case 'hotpotqa': return loadHotpotqa(p as TextMultihopPaths, opts);
    case 'webqa': return loadWebqa(p as WebqaPaths, { split: opts.split as WebqaOptions['split'] });
    case 'scienceqa': return loadScienceqa(p as ScienceqaPaths, { split: opts.split });
    case 'demo': return loadDemo(p as DemoPaths);
  }
  throw new KfError('bench_unknown', `no loader for "${name}"`, 'this is a bug: add it to lib/bench/registry.ts');
}
