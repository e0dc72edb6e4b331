/**
 * The index folder written piece by piece (engine-persist.ts, engine-files.ts):
 * the same bytes as the whole-string serialisation it replaced (so indexes saved
 * before still load), identical retrieval after a round trip on the demo world,
 * older formats refused with the rebuild command, and the block line reader.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Fragment } from '../../lib/corpus/types';
import type { SearchResult } from '../../lib/index/types';
import { SearchEngine } from '../../lib/index/engine';
import { HashingEmbedder } from '../../lib/index/embedders/hashing';
import { similarityEdges } from '../../lib/index/similarity-edges';
import { forEachLine, packArrays, packedParts, readPointer } from '../../lib/index/engine-files';
import { writeStreamed, writeStreamedAtomic } from '../../lib/util/fsx';
import { StagePeaks } from '../../lib/index/peak-rss';
import { demoFragments } from '../../lib/demo/fragments';
import { KfError } from '../../lib/util/errors';

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'kf-persist-'));
}

function ranked(r: SearchResult): [string, number][] {
  return r.hits.map((h) => [h.fragmentId, Number(h.score.toFixed(12))]);
}

/** The demo world scaled to `n` fragments, indexed with the hash embedder, 3 similarity edges each, one document removed. */
async function demoEngine(n: number): Promise<{ engine: SearchEngine; questions: string[] }> {
  const demo = demoFragments({ fragments: n, seed: 'persist-test' });
  const engine = SearchEngine.create({ embedder: new HashingEmbedder(64) });
  await engine.addFragments(demo.fragments);
  engine.setRelations(similarityEdges(engine, { k: 3, threshold: 0.3, exact: false }));
  engine.removeDocuments([demo.documents[1].id]);
  return { engine, questions: demo.questions.map((q) => q.question) };
}

function generationDir(root: string): string {
  return path.join(root, readPointer(root)!);
}

test('saved files have the bytes of the whole-string serialisation (indexes saved before this change still load)', async () => {
  const dir = tmpDir();
  try {
    const { engine } = await demoEngine(600);
    await engine.save(dir);
    const gen = generationDir(dir);
    const frags = fs.readFileSync(path.join(gen, 'fragments.jsonl'), 'utf8');
    const lines = frags.split('\n');
    assert.equal(lines.pop(), '', 'one line per slot, each ending in a newline');
    assert.ok(lines.includes('null'), 'the removed document left null slots');
    const ids = engine.fragmentIds();
    const live = lines.filter((l) => l !== 'null').map((l) => JSON.parse(l) as Fragment);
    assert.deepEqual(
      live.map((f) => f.id),
      ids,
    );
    assert.equal(frags, lines.map((l) => (l === 'null' ? 'null' : JSON.stringify(engine.fragment(JSON.parse(l).id)))).join('\n') + '\n');
    const rel = fs.readFileSync(path.join(gen, 'relations.json'), 'utf8');
    assert.ok(engine.relationEdges().length > 100);
    assert.equal(rel, JSON.stringify(engine.relationEdges()));
    const bm = fs.readFileSync(path.join(gen, 'bm25.json'), 'utf8');
    const parsed = JSON.parse(bm) as { options: unknown; nSlots: number; terms: string[]; keys: string[] };
    assert.deepEqual(Object.keys(parsed), ['options', 'nSlots', 'terms', 'keys']);
    assert.ok(parsed.terms.length > 50 && parsed.terms.length === parsed.keys.length);
    assert.equal(bm, JSON.stringify(parsed));
    // The manifest's sizes are those of the files on disk (checked again at load).
    const m = JSON.parse(fs.readFileSync(path.join(gen, 'manifest.json'), 'utf8')) as { files: Record<string, number> };
    for (const [name, size] of Object.entries(m.files)) assert.equal(fs.statSync(path.join(gen, name)).size, size, name);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('round trip on the demo world: build, save, load give the same rankings in every mode', async () => {
  const dir = tmpDir();
  try {
    const { engine, questions } = await demoEngine(1500);
    await engine.save(dir);
    const loaded = await SearchEngine.load(dir);
    assert.equal(loaded.size, engine.size);
    assert.deepEqual(loaded.fragmentIds(), engine.fragmentIds());
    assert.deepEqual(loaded.relationEdges(), engine.relationEdges());
    let compared = 0;
    for (const q of questions.slice(0, 25)) {
      for (const mode of ['bm25', 'dense', 'hybrid', 'hybrid+graph'] as const) {
        const want = ranked(await engine.search(q, { mode, topk: 8 }));
        assert.deepEqual(ranked(await loaded.search(q, { mode, topk: 8 })), want, `${mode}: ${q}`);
        compared += want.length;
      }
    }
    assert.ok(compared > 400, `compared ${compared} hits`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an index of another format is refused with a message naming the rebuild command', async () => {
  const dir = tmpDir();
  try {
    const { engine } = await demoEngine(200);
    await engine.save(dir);
    const file = path.join(generationDir(dir), 'manifest.json');
    const m = JSON.parse(fs.readFileSync(file, 'utf8')) as { format: string };
    fs.writeFileSync(file, JSON.stringify({ ...m, format: 'kf-search-index/0' }));
    await assert.rejects(
      SearchEngine.load(dir),
      (e: unknown) => e instanceof KfError && e.code === 'index_format' && /kf-search-index\/0/.test(e.message) && /kf index build/.test(e.hint),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a damaged fragments.jsonl (same size, so the manifest check passes) is reported as corrupt, naming the rebuild', async () => {
  const dir = tmpDir();
  try {
    const { engine } = await demoEngine(200);
    await engine.save(dir);
    const file = path.join(generationDir(dir), 'fragments.jsonl');
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, '#' + text.slice(1));
    await assert.rejects(
      SearchEngine.load(dir),
      (e: unknown) => e instanceof KfError && e.code === 'index_corrupt' && /line 1 is not valid JSON/.test(e.message) && /kf index build/.test(e.hint),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('writeStreamed writes exactly the pieces given (small and over-chunk pieces, multi-byte text) and returns the size', () => {
  const dir = tmpDir();
  try {
    const pieces: (string | Buffer)[] = [];
    for (let i = 0; i < 30000; i++) pieces.push(`line ${i} é漢字\n`);
    pieces.push(Buffer.alloc(3 * 1024 * 1024, 0x61));
    for (let i = 0; i < 10; i++) pieces.push(`tail ${i}\n`);
    const file = path.join(dir, 'out.bin');
    const size = writeStreamed(file, (put) => pieces.forEach(put));
    const want = Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
    assert.equal(size, want.length);
    assert.ok(fs.readFileSync(file).equals(want));
    assert.equal(
      writeStreamed(path.join(dir, 'empty'), () => undefined),
      0,
    );
    assert.equal(fs.statSync(path.join(dir, 'empty')).size, 0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('writeStreamedAtomic replaces a file whole; a producer that fails leaves the old content and no temporary file', () => {
  const dir = tmpDir();
  try {
    const file = path.join(dir, 'points.jsonl');
    fs.writeFileSync(file, 'old\n');
    const records = Array.from({ length: 5000 }, (_, i) => ({ id: `p${i}`, text: 'x'.repeat(i % 300) }));
    assert.throws(
      () =>
        writeStreamedAtomic(file, (put) => {
          put('{"partial":');
          throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
        }),
      (e: unknown) => e instanceof KfError && e.code === 'fs_enospc' && e.concerns === file,
    );
    assert.equal(fs.readFileSync(file, 'utf8'), 'old\n');
    assert.deepEqual(fs.readdirSync(dir), ['points.jsonl']);
    const size = writeStreamedAtomic(file, (put) => records.forEach((r) => put(JSON.stringify(r) + '\n')));
    const want = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
    assert.equal(fs.readFileSync(file, 'utf8'), want);
    assert.equal(size, Buffer.byteLength(want));
    assert.deepEqual(fs.readdirSync(dir), ['points.jsonl']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('packedParts written one by one give the bytes of packArrays', () => {
  const arrays = [Int32Array.from([1, -2, 3]), Uint16Array.from([7, 8, 9, 10, 11]), Uint8Array.from([1, 0, 2])];
  assert.ok(Buffer.concat(packedParts(arrays)).equals(packArrays(arrays)));
});

test('forEachLine reads lines across block boundaries (multi-byte characters split between blocks), with or without a final newline', () => {
  const dir = tmpDir();
  try {
    // Lines long enough that the 4 MB blocks end inside lines and inside multi-byte characters.
    const lines = Array.from({ length: 3000 }, (_, i) => `${i}:` + 'ü漢'.repeat(900 + (i % 7)));
    lines.splice(10, 0, '');
    for (const ending of ['\n', '']) {
      const file = path.join(dir, `lines${ending ? 'nl' : ''}.txt`);
      fs.writeFileSync(file, lines.join('\n') + ending);
      assert.ok(fs.statSync(file).size > 12 * 1024 * 1024);
      const got: string[] = [];
      forEachLine(file, (l) => got.push(l));
      assert.equal(got.length, lines.length);
      assert.deepEqual(got, lines);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('StagePeaks records one figure per stage, each at least the RSS when it closed', () => {
  const peaks = new StagePeaks();
  const held = Buffer.alloc(32 * 1024 * 1024, 1);
  const first = peaks.mark('allocate');
  const second = peaks.mark('idle');
  assert.deepEqual(Object.keys(peaks.mb), ['allocate', 'idle']);
  const rss = process.memoryUsage().rss / (1024 * 1024);
  assert.ok(first > 0 && second > 0 && second >= rss * 0.5, `${first} ${second} ${rss}`);
  assert.equal(held[held.length - 1], 1);
  if (process.platform === 'linux') assert.equal(peaks.resettable, true);
  else console.log('StagePeaks: peak RSS is not resettable on this platform; the figures are running peaks');
});
