/**
 * `kf bench serve-kb`: searches per second and latency of `kf serve kb` over HTTP with concurrent
 * clients, on `kf bench retrieval`'s scaled demo world (lib/serve-kb/bench.ts). A benchmark, not a test.
 */
import * as path from 'node:path';
import { bool, int, isPositiveInt, str, type CommandSpec } from '../command';
import { OFFLINE_EMBEDDERS, type OfflineEmbedderName } from '../../index/embedders/registry';
import { benchServeKb } from '../../serve-kb/bench';
import { SERVE_KB_WORKER_FILE } from '../serve-kb-worker';
import { workerCount, workersOk } from '../../serve-kb/workers';
import { writeJsonAtomic } from '../../util/fsx';

export const command: CommandSpec = {
  name: 'bench serve-kb',
  group: 'dev',
  summary: 'Searches/s and p50/p90 latency of kf serve kb over HTTP with concurrent clients, on the scaled demo world',
  options: {
    fragments: { type: 'string', default: '200000', description: 'corpus size (the demo world scaled to N fragments)', validate: isPositiveInt },
    workers: {
      type: 'string',
      default: '1',
      description: 'server processes (kf serve kb --workers; 1 = the server in this process, auto = one per CPU)',
      validate: workersOk,
    },
    clients: { type: 'string', default: '8', description: 'concurrent clients', validate: isPositiveInt },
    requests: { type: 'string', default: '2000', description: 'timed searches in all', validate: isPositiveInt },
    rate: {
      type: 'string',
      default: '200',
      description: 'then offer the searches at this many a second in all (latency at that load)',
      validate: isPositiveInt,
    },
    warmup: { type: 'string', default: '100', description: 'untimed searches first', validate: isPositiveInt },
    topk: { type: 'string', default: '8', description: 'hits per search (the runner asks 8)', validate: isPositiveInt },
    seed: { type: 'string', default: 'kf-demo', description: 'demo world seed' },
    embedder: { type: 'string', default: 'corpus-fitted', choices: OFFLINE_EMBEDDERS, description: 'offline dense encoder' },
    cache: { type: 'string', description: 'index cache folder shared with kf bench retrieval --cache (built there when missing)' },
    out: { type: 'string', description: 'also write the JSON report to this file' },
    json: { type: 'boolean', description: 'print the report as JSON' },
    quiet: { type: 'boolean', description: 'no progress lines' },
  },
  examples: [
    'kf bench serve-kb --fragments 200000 --cache /tmp/kf-bench-cache',
    'kf bench serve-kb --fragments 200000 --cache /tmp/kf-bench-cache --workers 2',
    'kf bench serve-kb --fragments 4800 --requests 500 --json',
  ],
  async run(args) {
    const report = await benchServeKb({
      fragments: int(args, 'fragments')!,
      workers: workerCount(str(args, 'workers')!),
      workerFile: SERVE_KB_WORKER_FILE,
      clients: int(args, 'clients'),
      requests: int(args, 'requests'),
      warmup: int(args, 'warmup'),
      rate: int(args, 'rate'),
      topk: int(args, 'topk'),
      seed: str(args, 'seed'),
      embedder: str(args, 'embedder') as OfflineEmbedderName,
      cacheDir: str(args, 'cache') ? path.resolve(str(args, 'cache')!) : undefined,
      progress: bool(args, 'quiet') ? undefined : (l) => console.error(l),
    });
    const out = str(args, 'out');
    if (out) writeJsonAtomic(path.resolve(out), report);
    if (bool(args, 'json')) console.log(JSON.stringify(report));
    else
      console.log(
        `kf serve kb (${report.workers} worker${report.workers > 1 ? 's' : ''}), ${report.fragments} fragments, ${report.clients} clients, ${report.requests} searches (top-${report.topk}) over HTTP on ${report.cpus} cores: ` +
          `closed loop ${report.searchesPerSecond} searches/s (p50 ${report.latencyMs.p50} ms, p90 ${report.latencyMs.p90} ms); ` +
          `paced at ${report.paced.rate}/s: ${report.paced.searchesPerSecond} searches/s, p50 ${report.paced.latencyMs.p50} ms, p90 ${report.paced.latencyMs.p90} ms, p99 ${report.paced.latencyMs.p99} ms; ` +
          `server CPU ${report.serverCpuMsPerSearch} ms/search${report.workers > 1 ? ` (${report.serverCpuMsPerSearchEach.join(' + ')})` : ''}, load average ${report.loadAverage}; ${report.errors} errors` +
          `${report.indexFromCache ? ' (index from the cache)' : ''}`,
      );
    return report.errors ? 1 : 0;
  },
};
