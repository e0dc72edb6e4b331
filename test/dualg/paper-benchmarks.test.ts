/**
 * The benchmarks DualG-MRAG reports (MMQA, WebQA, ScienceQA): each configuration loads and names a DualG row;
 * where the benchmark's data is present under ../shared/bench its questions and corpus load (MMQA: the image
 * side only, captions as passages); where it is absent the test says what is missing and skips.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { configuration } from '../../lib/pipeline/registry';
import { loadExperiment } from '../../lib/run/config';
import { benchmarkFiles, loadConfiguredBenchmark } from '../../lib/run/questions';
import { repoRoot } from '../../lib/util/paths';

const BENCHMARKS = ['mmqa', 'webqa', 'scienceqa'] as const;

for (const bench of BENCHMARKS) {
  test(`${bench}: DualG configurations load; the benchmark runs where its data is present`, (t) => {
    const dir = path.join(repoRoot(), 'experiments', 'dualg', bench);
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.toml') && !f.startsWith('_'));
    assert.ok(files.includes('DG.toml') && files.includes('DG-heuristic.toml'), `${bench}: the paper's row and the heuristic row`);
    for (const f of files) {
      const exp = loadExperiment(path.join(dir, f));
      assert.equal(exp.config.benchmark.name, bench);
      assert.equal(configuration(exp.config.pipeline.name)?.family, 'dualg', `${f} runs a DualG row`);
    }
    const config = loadExperiment(path.join(dir, 'DG.toml')).config;
    const missing = Object.entries(benchmarkFiles(config)).filter(([, p]) => !fs.existsSync(p));
    if (missing.length) {
      t.skip(`${bench} data not present (${missing.map(([k, p]) => `${k}: ${p}`).join('; ')}); the configurations were checked, not run`);
      return;
    }
    const { data } = loadConfiguredBenchmark(config);
    assert.ok(data.questions.length > 0, `${bench}: questions`);
    assert.ok((data.passages ?? []).length > 0, `${bench}: a corpus to build the graph from`);
    if (bench === 'mmqa') {
      // The loader covers the image side: every question's gold is an image, every passage an image caption.
      assert.ok(data.questions.every((q) => q.goldDocs.length > 0));
      assert.deepEqual([...new Set(data.questions.flatMap((q) => q.modality))], ['image'], 'image-only questions');
    }
  });
}
