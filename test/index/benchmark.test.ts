import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { benchRetrieval } from '../../lib/index/benchmark';
import { formatBenchReport } from '../../lib/index/bench-format';
import { percentile } from '../../lib/util/percentile';
import { benchFigures } from '../../lib/cli/commands/bench-retrieval';

test('percentile: linear interpolation (the harness has one percentile)', () => {
  assert.equal(percentile([5, 1, 3, 2, 4], 0.5), 3);
  assert.ok(Math.abs(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)! - 9.1) < 1e-9);
  assert.equal(percentile([], 0.5), null);
});

test('retrieval benchmark runs end to end on a small sweep (hash embedder), reports every stage, recall, memory and growth, and reuses a cached index', async () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'ridx-bench-'));
  try {
    const opts = {
      sizes: [300, 600],
      queries: 20,
      recallQueries: 10,
      embedder: 'hash' as const,
      seed: 'bench-test',
      cacheDir: cache,
      compareEdges: true,
      efSweep: [16, 64],
    };
    const r = await benchRetrieval(opts);
    assert.equal(r.sizes.length, 2);
    for (const s of r.sizes) {
      assert.ok(s.fragments === 300 || s.fragments === 600);
      assert.equal(s.queries, 20);
      for (const k of ['bm25Ms', 'hnswMs', 'fusionMs', 'expansionMs', 'contextMs', 'roundMs'] as const) {
        assert.ok(s.stages[k].p50 >= 0 && s.stages[k].p90 >= s.stages[k].p50, k);
      }
      assert.ok(s.hnswRecallAt8 >= 0.9 && s.hnswRecallAt8 <= 1);
      assert.ok(s.denseStageRecallAt8 >= s.hnswRecallAt8 - 1e-9);
      assert.ok(s.memory.rssMB > 0 && s.hitsPerQuery >= 1);
      assert.equal(s.build.fromCache, false);
      // Build profile per structure, memory per structure, the other edge method compared.
      assert.ok(s.build.bm25Ms! >= 0 && s.build.hnswMs! >= 0 && s.build.bm25Ms! + s.build.hnswMs! <= s.build.indexMs + 1e-6);
      assert.ok(s.stages.wideningMs.p50 <= s.stages.hnswMs.p50 + 1e-6);
      assert.ok(s.memory.peakRssMB >= s.memory.rssMB * 0.5 && s.memory.hnswGraphMB > 0 && s.memory.denseVectorsMB > 0 && s.memory.fragmentsMB > 0);
      // Peak RSS per stage, in build order; the overall peak is the highest of them; each structure says how it was sized.
      const stagesSeen = Object.keys(s.memory.stagePeakRssMB!);
      assert.deepEqual(stagesSeen.slice(0, 3), ['generate', 'fit', 'embed+index']);
      assert.ok(stagesSeen.includes('edges') && stagesSeen.includes('searches'));
      assert.equal(s.memory.peakRssMB, Math.max(...Object.values(s.memory.stagePeakRssMB!), s.memory.rssMB));
      assert.match(s.memory.structureSizesHow!.bm25IndexMB, /^exact/);
      const c = s.edgeComparison!;
      assert.equal(c.method, 'search');
      assert.deepEqual(
        s.efSweep!.map((e) => e.efSearch),
        [16, 64],
      );
      assert.ok(s.efSweep!.every((e) => e.hnswRecallAt8 > 0.5 && e.hnswRecallAt8 <= 1 && e.hnswP50Ms >= 0 && e.roundP50Ms >= 0));
      assert.ok(s.efSweep!.every((e) => e.denseStageRecallAt8 >= e.hnswRecallAt8 - 1e-9));
      assert.ok(c.edges > 0 && c.common <= c.edges && c.jaccard > 0.8 && c.jaccard <= 1, `edge overlap ${c.jaccard}`);
    }
    assert.deepEqual(
      r.curve.map((p) => p.fragments),
      [300, 600],
    );
    assert.ok(r.curve.every((p) => p.buildS > 0 && p.roundP50Ms >= 0 && p.efSearch >= 8 && p.peakRssMB > 0 && p.denseStageRecallAt8 >= p.hnswRecallAt8 - 1e-9));
    assert.match(r.recallMeasures.denseStageRecallAt8, /exact cosine/, 'the JSON says what each recall measures');
    assert.match(formatBenchReport(r), /growth curve: fragments/);
    // The growth-curve figures: one x per size, every series drawn.
    const figs = benchFigures(r);
    assert.deepEqual(Object.keys(figs).sort(), ['bench-retrieval-build', 'bench-retrieval-round']);
    for (const spec of Object.values(figs)) {
      assert.ok(spec.data.length >= 4);
      for (const t of spec.data) assert.deepEqual(t.x, [300, 600]);
    }
    assert.equal(r.growth?.corpusRatio, 2);
    assert.match(formatBenchReport(r), /growth: 300 -> 600 fragments/);
    const again = await benchRetrieval(opts);
    assert.ok(again.sizes.every((s) => s.build.fromCache && (s.build.loadMs ?? -1) >= 0));
    assert.equal(again.sizes[1].build.edges, r.sizes[1].build.edges);
    await assert.rejects(benchRetrieval({ sizes: [0] }));
  } finally {
    fs.rmSync(cache, { recursive: true, force: true });
  }
});
