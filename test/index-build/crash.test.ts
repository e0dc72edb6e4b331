/**
 * Crash safety: a build killed with SIGKILL in the middle of its documents
 * leaves the previous index usable, and a rerun resumes (documents finished
 * before the kill are not redone) and ends with the same index as a build that
 * was never interrupted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { buildIndex, type BuildProgress } from '../../lib/index/build';
import { openIndex } from '../../lib/index/open';
import { DOCS, writeCorpus } from './corpus';
import { tempDir } from './helpers';

const FAST = { ingest: { ocr: 'off' as const }, hashDim: 64, concurrency: 1 };

/** Run the child build and SIGKILL it once `killAfter` documents were reported processed. */
function buildAndKill(corpus: string, out: string, killAfter: number): Promise<{ lines: string[]; signal: NodeJS.Signals | null }> {
  const ext = path.extname(__filename);
  const child = path.join(__dirname, `build-child${ext}`);
  const args = ext === '.ts' ? ['--import', 'tsx', child] : [child];
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...args, corpus, out, '600'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let buf = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const parts = buf.split('\n');
      buf = parts.pop()!;
      for (const l of parts) {
        lines.push(l);
        if (lines.filter((x) => x.endsWith(' processed')).length === killAfter) p.kill('SIGKILL');
      }
    });
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve({ lines, signal }) : reject(new Error(`child exited with ${code} before it was killed: ${err}`)),
    );
  });
}

test('SIGKILL mid-build: the previous index stays usable; the rerun resumes and equals an uninterrupted build', async () => {
  const dir = tempDir('kf-crash-');
  const corpus = writeCorpus(path.join(dir, 'corpus'), { 'alpha.md': DOCS['alpha.md'], 'beta.md': DOCS['beta.md'], 'gamma.md': DOCS['gamma.md'] });
  const A = path.join(dir, 'A');
  const B = path.join(dir, 'B');
  await buildIndex({ corpusDir: corpus, outDir: A, embedder: 'hash', options: FAST });
  fs.cpSync(A, B, { recursive: true });
  const before = await openIndex(A);
  const v1Docs = before.documents().map((d) => d.id);

  // Version 2: one changed, one removed, five added documents.
  fs.writeFileSync(path.join(corpus, 'beta.md'), DOCS['beta.md'].replace('212 km', '215 km'));
  fs.unlinkSync(path.join(corpus, 'gamma.md'));
  const added: Record<string, string> = { 'delta.md': DOCS['delta.md'] };
  for (const n of ['e1', 'e2', 'e3', 'e4'])
    added[`${n}.md`] = `# Depot ${n}\n\nDepot ${n} stores paper rolls for Alpha Mills. Depot ${n} opened in 19${n.slice(1)}5 near Varnholt.\n`;
  writeCorpus(corpus, added);
  const todo = ['beta', 'delta', 'e1', 'e2', 'e3', 'e4'];

  const { lines } = await buildAndKill(corpus, A, 2);
  assert.ok(!lines.includes('finished'), 'the child was killed before it finished');
  const doneByChild = lines.filter((l) => l.endsWith(' processed')).map((l) => l.split(' ')[1]);
  assert.equal(doneByChild.length, 2);

  // The previous index is intact and opens (the killed build left its lock and maybe a temporary folder).
  const after = await openIndex(A);
  assert.equal(after.manifest.generation, before.manifest.generation);
  assert.deepEqual(
    after.documents().map((d) => d.id),
    v1Docs,
  );
  assert.ok((await after.retriever.search('harbour master', { topk: 3 })).hits.some((h) => h.docId === 'gamma'));
  assert.ok(fs.existsSync(path.join(A, '.build.lock')), 'the killed build left its lock behind');
  fs.mkdirSync(path.join(A, '.build-000007.tmp-999999'));

  // Rerun: resumes (the child's documents are reused), takes over the stale lock, cleans the temporary folder.
  const events: BuildProgress[] = [];
  const resumed = await buildIndex({ corpusDir: corpus, outDir: A, embedder: 'hash', options: { ...FAST, onProgress: (e) => void events.push(e) } });
  const processedNow = events.filter((e) => e.phase === 'document' && e.work === 'processed').map((e) => e.docId!);
  assert.ok(
    doneByChild.every((d) => !processedNow.includes(d)),
    `not redone: ${doneByChild} (processed now: ${processedNow})`,
  );
  // Each added/changed document was processed exactly once over the two runs (the child sleeps after each commit, so the kill lands between documents).
  assert.deepEqual([...processedNow, ...doneByChild].sort(), todo);
  assert.equal(resumed.report.resumed, true);
  assert.ok(!fs.existsSync(path.join(A, '.build-000007.tmp-999999')));
  assert.ok(!fs.existsSync(path.join(A, '.build.lock')));

  // The same index as an uninterrupted build from the same previous index.
  const straight = await buildIndex({ corpusDir: corpus, outDir: B, embedder: 'hash', options: FAST });
  assert.equal(straight.report.resumed, false);
  const a = await openIndex(A);
  const b = await openIndex(B);
  assert.deepEqual(
    a.documents().map((d) => [d.id, d.workKey, d.fragments, d.points]),
    b.documents().map((d) => [d.id, d.workKey, d.fragments, d.points]),
  );
  assert.deepEqual(a.engine.fragmentIds().sort(), b.engine.fragmentIds().sort());
  assert.deepEqual(a.knowledgePoints(), b.knowledgePoints());
  assert.deepEqual(a.relations(), b.relations());
  assert.deepEqual(a.manifest.counts, b.manifest.counts);
  for (const q of ['Depot e3 paper rolls', 'Beta Rail route length', 'Delta Bank founded', 'harbour master']) {
    const x = await a.retriever.search(q, { topk: 5 });
    const y = await b.retriever.search(q, { topk: 5 });
    assert.deepEqual(
      x.hits.map((h) => [h.fragmentId, h.score.toFixed(6), h.via]),
      y.hits.map((h) => [h.fragmentId, h.score.toFixed(6), h.via]),
      q,
    );
  }
  assert.deepEqual(
    a.documents().map((d) => d.id),
    ['alpha', 'beta', 'delta', 'e1', 'e2', 'e3', 'e4'],
  );
});
