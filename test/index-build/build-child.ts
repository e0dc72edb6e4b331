/**
 * Child process of crash.test.ts: builds an index and reports each finished
 * document on stdout ("doc <id> <work>"), then waits `delayMs` so the parent can
 * SIGKILL it mid-build. Usage: build-child <corpusDir> <outDir> <delayMs>
 */
import { buildIndex } from '../../lib/index/build';

const [corpusDir, outDir, delay] = process.argv.slice(2);
const delayMs = Number(delay ?? 0);
buildIndex({
  corpusDir,
  outDir,
  embedder: 'hash',
  options: {
    ingest: { ocr: 'off' },
    hashDim: 64,
    concurrency: 1,
    onProgress: async (e) => {
      if (e.phase !== 'document') return;
      process.stdout.write(`doc ${e.docId} ${e.work}\n`);
      await new Promise((r) => setTimeout(r, delayMs));
    },
  },
}).then(
  () => process.stdout.write('finished\n'),
  (e) => {
    process.stderr.write(`build failed: ${e instanceof Error ? e.stack : e}\n`);
    process.exit(1);
  },
);
