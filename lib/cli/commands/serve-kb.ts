/**
 * `kf serve kb`: serve the harness's indexes over the released KnowForge runner's knowledge-base API
 * (`/api/v2/kb/{uuid}/...`, lib/serve-kb/server.ts), so the authors' runner (and the harness's own
 * `--kb remote:`) can run on any corpus the harness indexes. Runs until Ctrl-C / SIGTERM.
 */
import * as path from 'node:path';
import { bool, list, str, type CommandSpec } from '../command';
import { startKbCluster } from '../../serve-kb/cluster';
import { SERVE_KB_WORKER_FILE, routerOf } from '../serve-kb-worker';
import { openPlanned, type PlannedSource } from '../../serve-kb/planned';
import { startKbServer } from '../../serve-kb/server';
import { RETRIEVAL_MODES } from '../../index/types';
import { workerCount, workersOk } from '../../serve-kb/workers';

const portOk = (v: string) => (/^\d+$/.test(v) && Number(v) < 65536 ? undefined : `expected a port number (0-65535; 0 = any free port), got "${v}"`);

/** Resolves on the first SIGINT or SIGTERM. */
function untilStopped(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (sig: string) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(sig);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export const command: CommandSpec = {
  name: 'serve kb',
  group: 'run',
  summary: "Serve indexes over the KnowForge runner's knowledge-base API (/api/v2/kb/{uuid}/...), per document or whole",
  options: {
    index: { type: 'string', multiple: true, description: 'index folder (kf index build); repeat for one index per document' },
    bench: { type: 'string', description: "benchmark (harness name or the runner's mmlb/m3d/mhr): default index .kf-cache/index/<name>, its packages section" },
    packages: { type: 'string', description: "package map: the runner's data/kb_packages.json (its uuids route to our documents) or {document: uuid}" },
    section: { type: 'string', description: "section of the package map to read (default: the benchmark's, e.g. mmlongbench_doc)" },
    'per-document': { type: 'boolean', description: 'one package per document with uuids made from the ids (default for single-document benchmarks)' },
    whole: { type: 'boolean', description: 'serve the whole index as one package (--uuid), even for a single-document benchmark' },
    uuid: { type: 'string', default: 'local', description: 'package id of the whole index' },
    'write-packages': {
      type: 'string',
      description: "write the served packages in the runner's kb_packages.json layout to this file (the runner's packages_file)",
    },
    mode: { type: 'string', choices: RETRIEVAL_MODES, description: 'retrieval mode of every search (default hybrid+graph)' },
    host: { type: 'string', default: '127.0.0.1', description: 'address to listen on' },
    port: { type: 'string', default: '8765', description: 'port (0 = any free port)', validate: portOk },
    key: { type: 'string', description: 'bearer key every request must carry (default $KF_SERVE_KB_KEY; none: no check)' },
    models: { type: 'string', description: 'models config file, for an index built with an embedding endpoint' },
    workers: {
      type: 'string',
      default: '1',
      description: 'processes answering on the port, each opening the index itself (auto = one per CPU; 1 = this process only)',
      validate: workersOk,
    },
    verbose: { type: 'boolean', description: 'one line per request' },
    quiet: { type: 'boolean', description: 'only the listening line' },
  },
  examples: [
    'kf serve kb --index .kf-cache/index/demo --uuid demo',
    'kf serve kb --bench mmlb --workers auto',
    'kf serve kb --bench mmlb --packages ../knowforge-bench/data/kb_packages.json --write-packages /tmp/served-packages.json --key secret',
  ],
  async run(args) {
    const quiet = bool(args, 'quiet');
    const say = (line: string) => !quiet && console.error(line);
    const workers = workerCount(str(args, 'workers')!);
    const key = str(args, 'key') ?? process.env.KF_SERVE_KB_KEY ?? undefined;
    const source: PlannedSource = {
      plan: {
        indexes: list(args, 'index').map((d) => path.resolve(d)),
        bench: str(args, 'bench'),
        packages: str(args, 'packages'),
        section: str(args, 'section'),
        perDocument: bool(args, 'whole') ? false : bool(args, 'per-document') ? true : undefined,
        uuid: str(args, 'uuid'),
        mode: str(args, 'mode'),
      },
      models: str(args, 'models'),
      writePackages: str(args, 'write-packages'),
    };
    const server = { key: key || undefined, host: str(args, 'host'), port: Number(str(args, 'port')), verbose: bool(args, 'verbose') };
    const running =
      workers > 1
        ? await startKbCluster({
            workers,
            workerFile: SERVE_KB_WORKER_FILE,
            spec: { server, source: { kind: 'plan', ...source } },
            log: (l) => console.error(l),
          })
        : undefined;
    const single = running ? undefined : await openPlanned(source, { writer: true, say, router: source.models ? routerOf(source.models) : undefined });
    const served = running ?? (await startKbServer({ ...server, packages: single!.packages, log: (l) => console.error(l) }));
    for (const l of running?.lines ?? []) say(l);
    const how = `key ${key ? 'required' : 'not checked'}${running ? `, ${workers} worker processes` : ''}`;
    console.log(`serving ${served.packages} package(s) at ${served.url}/api/v2/kb/{uuid}/... (${how}); Ctrl-C stops`);
    const sig = await Promise.race([untilStopped(), ...(running ? [running.failed] : [])]);
    await served.close();
    if (typeof sig !== 'string') throw sig;
    await single?.close();
    say(`stopped (${sig})`);
    return 0;
  },
};
