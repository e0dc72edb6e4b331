/**
 * Child process for the kill -9 resume test: runs the runner on the fake
 * pipeline (slow enough to be killed mid-way). Usage:
 *   <file> <questions.json> <corpus dir> <results dir> <run id>
 */
import { runExperiment } from '../../lib/run/runner';
import { experiment, fakePipeline, fakeRouter } from './helpers';

const [questions, corpus, results, runId] = process.argv.slice(2);
runExperiment({
  experiment: experiment({ questions, corpus }, { concurrency: 4 }),
  runId,
  resultsDir: results,
  router: fakeRouter(),
  pipeline: fakePipeline({ delayMs: 50 }),
}).then(
  (o) => {
    process.stdout.write(`done ${o.status} ${o.recordedNow}\n`);
  },
  (e) => {
    process.stderr.write(`child failed: ${e && e.stack ? e.stack : e}\n`);
    process.exit(3);
  },
);
