/**
 * One worker process of `kf serve kb --workers N` (the primary: ./cluster.ts). node:cluster runs the
 * CLI's entry file (lib/cli/serve-kb-worker.ts, which hands in how to build a models router); the
 * worker reads what to serve from its environment (`KF_SERVE_KB_WORKER`, JSON), opens it
 * itself (read-only), listens on the port it shares with the other workers, and tells the primary over
 * IPC: `ready` with its listening URL and the lines a person reads, or `failed` with its KfError. It
 * answers `cpu` with its CPU time, and stops (server closed, exit 0) on `stop` or when the primary is
 * gone. Ctrl-C reaches every process of the terminal's group: a worker leaves it to the primary.
 */
import type { IndexModels } from '../index/open';
import { isKfError, errorMessage } from '../util/errors';
import { openBenchWorld, type BenchWorldSource } from './bench-world';
import type { ServedPackage } from './packages';
import { openPlanned, type PlannedSource } from './planned';
import { startKbServer } from './server';

export const WORKER_ENV = 'KF_SERVE_KB_WORKER';

export interface WorkerSpec {
  server: { key?: string; host?: string; port: number; verbose?: boolean };
  source: ({ kind: 'plan' } & PlannedSource) | ({ kind: 'bench'; progress?: boolean } & BenchWorldSource);
  /** The first worker: writes `--write-packages`, prints the bench world's build progress. */
  first?: boolean;
}

/** What the bench needs from the first worker: its world's size and queries. */
export interface BenchInfo {
  fragments: number;
  documents: number;
  queries: string[];
  fromCache: boolean;
}

export type FromWorker =
  | { type: 'ready'; url: string; packages: number; lines: string[]; bench?: BenchInfo }
  | { type: 'failed'; code: string; message: string; hint: string }
  | { type: 'cpu'; user: number; system: number };

export type ToWorker = 'cpu' | 'stop';

interface Opened {
  packages: ServedPackage[];
  bench?: BenchInfo;
  close(): Promise<void>;
}

/** Builds the models of an index built with an embedding endpoint, from a models config file. */
export type ModelsFromFile = (file: string) => IndexModels & { close(): Promise<void> };

async function open(spec: WorkerSpec, say: (line: string) => void, models?: ModelsFromFile): Promise<Opened> {
  const src = spec.source;
  if (src.kind === 'plan') return openPlanned(src, { writer: !!spec.first, say, router: src.models ? models?.(src.models) : undefined });
  const progress = src.progress && spec.first ? (l: string) => console.error(l) : undefined;
  const { pkg, ...bench } = await openBenchWorld(src, progress);
  return { packages: [pkg], bench, close: async () => undefined };
}

const tell = (m: FromWorker) => new Promise<void>((done) => (process.send ? process.send(m, undefined, {}, () => done()) : done()));

/** The worker's life, in a process node:cluster started with `WORKER_ENV` set. */
export async function runKbWorker(models?: ModelsFromFile): Promise<void> {
  const spec = JSON.parse(process.env[WORKER_ENV]!) as WorkerSpec;
  process.on('SIGINT', () => undefined);
  const lines: string[] = [];
  let opened: Opened;
  let server: Awaited<ReturnType<typeof startKbServer>>;
  try {
    opened = await open(spec, (l) => lines.push(l), models);
    server = await startKbServer({ ...spec.server, packages: opened.packages, log: (l) => console.error(l) });
  } catch (e) {
    const kf = isKfError(e);
    await tell({ type: 'failed', code: kf ? e.code : 'serve_worker', message: kf ? e.message : errorMessage(e), hint: kf ? e.hint : '' });
    process.exit(1);
  }
  const stop = () =>
    void server
      .close()
      .then(() => opened.close())
      .finally(() => process.exit(0));
  process.on('message', (m: ToWorker) => {
    if (m === 'cpu') void tell({ type: 'cpu', ...process.cpuUsage() });
    else if (m === 'stop') stop();
  });
  process.once('disconnect', stop);
  await tell({ type: 'ready', url: server.url, packages: server.packages, lines, bench: opened.bench });
}
