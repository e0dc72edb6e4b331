/**
 * The third method's benchmark ('third-qa'): the demo world's questions and documents read through
 * the demo loader, scored its own way: `hit` is 1 when the gold answer appears in the final answer
 * (case and spacing aside), and refusals count as answered for unanswerable questions.
 */
import { DEMO } from '../../lib/bench/benchmarks/demo';
import type { DemoPaths } from '../../lib/bench/demo';
import type { BenchmarkName } from '../../lib/bench/names';
import type { BenchmarkSpec } from '../../lib/bench/spec';
import type { Question } from '../../lib/bench/types';

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

function hit(q: Question, value: string, refused: 0 | 1): Record<string, number> {
  const golds = q.answer === null ? [] : [q.answer].flat();
  const found = golds.length ? golds.some((g) => norm(value).includes(norm(g))) : refused === 1;
  return { hit: found ? 1 : 0 };
}

export const THIRD_BENCHMARK: BenchmarkSpec<DemoPaths> = {
  ...DEMO,
  name: 'third-qa' as BenchmarkName,
  description: 'third method: the demo world, scored by whether the gold answer appears in the final answer',
  load: (paths, opts) => {
    const data = DEMO.load(paths, opts);
    return { ...data, name: 'third-qa', questions: data.questions.map((q) => ({ ...q, benchmark: 'third-qa' })) };
  },
  metrics: ['hit'],
  score: hit,
  buckets: [],
};
