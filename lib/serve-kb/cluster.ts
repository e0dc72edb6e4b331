/**
 * `kf serve kb --workers N`: N worker processes answering on one port (node:cluster, round-robin: this
 * process accepts each connection and hands it to the next worker). Each worker opens the index itself
 * (./worker.ts, run from the CLI's entry file lib/cli/serve-kb-worker.ts, handed in as `workerFile`). The first worker starts alone (it may build a cache the others then read, and
 * writes `--write-packages`), then the others together; the cluster is running when every worker
 * listens. A worker that fails at start fails the start with its KfError (the others are stopped); a
 * worker that dies later is reported (its exit code or signal) and replaced, unless workers keep dying
 * (crashLoop); when none is left and none starts again, or they keep dying, `failed` says why.
 */
import cluster, { type Worker } from 'node:cluster';
import * as net from 'node:net';
import { KfError, errorMessage } from '../util/errors';
import { WORKER_ENV, type BenchInfo, type FromWorker, type ToWorker, type WorkerSpec } from './worker';

export interface KbClusterOptions {
  workers: number;
  /** The file node:cluster runs in each worker (it calls ./worker.ts runKbWorker): .js compiled, .ts under tsx. */
  workerFile: string;
  spec: Omit<WorkerSpec, 'first'>;
  /** Workers that die and their replacements, one line each. */
  log: (line: string) => void;
}

export interface RunningKbCluster {
  url: string;
  packages: number;
  /** The first worker's lines for a person (plan notes, packages). */
  lines: string[];
  bench?: BenchInfo;
  /** Each live worker's CPU time so far (microseconds, as process.cpuUsage). */
  cpuUsage(): Promise<{ pid: number; user: number; system: number }[]>;
  /** Resolves (never rejects) when every worker is gone and none starts again: the server answers nothing. */
  failed: Promise<KfError>;
  close(): Promise<void>;
}

type Ready = Extract<FromWorker, { type: 'ready' }>;

/** A port free on `host` now (the OS's pick for port 0); the workers then listen on it. */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** node:cluster runs `file` in each worker; a .ts file (under tsx) gets tsx's loader. */
function setupWorkers(file: string): void {
  cluster.schedulingPolicy = cluster.SCHED_RR;
  cluster.setupPrimary({
    exec: file,
    execArgv: file.endsWith('.ts') ? ['--require', require.resolve('tsx/cjs')] : [],
    args: [],
  });
}

/** Fork one worker; resolves when it listens, rejects with its KfError when it fails first. */
function startWorker(spec: WorkerSpec): Promise<{ worker: Worker; ready: Ready }> {
  const worker = cluster.fork({ [WORKER_ENV]: JSON.stringify(spec) });
  return new Promise((resolve, reject) => {
    const onMessage = (m: FromWorker) => {
      if (m.type === 'ready') resolve({ worker, ready: m });
      else if (m.type === 'failed') reject(new KfError(m.code, m.message, m.hint));
      else return;
      done();
    };
    const onExit = (code: number | null, signal: string | null) => {
      done();
      reject(
        new KfError(
          'serve_worker_exit',
          `a kf serve kb worker exited with ${code ?? signal} before listening`,
          'see its lines above; --workers 1 runs the server in this process',
          {
            concerns: String(worker.process.pid),
          },
        ),
      );
    };
    const done = () => {
      worker.off('message', onMessage);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('exit', onExit);
  });
}

function stopWorker(w: Worker): Promise<void> {
  if (w.isDead()) return Promise.resolve();
  return new Promise((done) => {
    const kill = setTimeout(() => w.process.kill('SIGKILL'), 5000);
    w.once('exit', () => {
      clearTimeout(kill);
      done();
    });
    if (w.isConnected()) w.send('stop' satisfies ToWorker);
    else w.process.kill('SIGTERM');
  });
}

function askCpu(w: Worker): Promise<{ pid: number; user: number; system: number }> {
  return new Promise((resolve) => {
    const on = (m: FromWorker) => {
      if (m.type !== 'cpu') return;
      w.off('message', on);
      resolve({ pid: w.process.pid!, user: m.user, system: m.system });
    };
    w.on('message', on);
    w.send('cpu' satisfies ToWorker);
  });
}

/**
 * Whether the workers are crash-looping: counts this death, true when more than max(5, 2 x workers) died within
 * the last minute. A worker that dies now and then (killed, out of memory once) is replaced; one that dies every time
 * it answers is a bug that restarting forever would hide, and a busy restart loop takes the CPU from the live ones.
 */
function crashLoop(deaths: number[], workers: number, now = Date.now()): boolean {
  // KF_SERVE_KB_CRASH_WINDOW_S widens the minute (tests: a loaded machine restarts workers slowly).
  const windowMs = (Number(process.env.KF_SERVE_KB_CRASH_WINDOW_S) || 60) * 1000;
  deaths.push(now);
  while (deaths.length && deaths[0] < now - windowMs) deaths.shift();
  return deaths.length > Math.max(5, 2 * workers);
}

/** The live workers: each that dies is reported and replaced; `failed` resolves when none is left and none starts. */
function supervisor(o: KbClusterOptions) {
  const live = new Set<Worker>();
  const state = { stopping: false, starting: 0 };
  let fail: (e: KfError) => void = () => undefined;
  const failed = new Promise<KfError>((resolve) => (fail = resolve));
  const replace = () => {
    state.starting++;
    startWorker({ ...o.spec }).then(
      (r) => {
        state.starting--;
        supervise(r.worker);
        o.log(`kf serve kb: worker ${r.worker.process.pid} replaces it`);
      },
      (e: unknown) => {
        state.starting--;
        o.log(`kf serve kb: the replacement worker failed: ${errorMessage(e)} (${live.size} workers left)`);
        if (!live.size && !state.starting && !state.stopping)
          fail(
            new KfError(
              'serve_no_worker',
              `every kf serve kb worker is gone and none starts again: ${errorMessage(e)}`,
              'fix that and start kf serve kb again',
            ),
          );
      },
    );
  };
  const deaths: number[] = [];
  const supervise = (w: Worker) => {
    live.add(w);
    w.once('exit', (code, signal) => {
      live.delete(w);
      if (state.stopping) return;
      const how = signal ? `signal ${signal}` : `code ${code}`;
      if (crashLoop(deaths, o.workers)) {
        state.stopping = true;
        o.log(`kf serve kb: worker ${w.process.pid} exited with ${how}; ${deaths.length} workers died within a minute: not starting another`);
        void Promise.all([...live].map(stopWorker)).then(() =>
          fail(
            new KfError(
              'serve_crash_loop',
              `kf serve kb workers keep dying (${deaths.length} within a minute, the last with ${how})`,
              'see the lines above for what killed them (memory: fewer --workers); --workers 1 runs the server in this process',
            ),
          ),
        );
        return;
      }
      o.log(`kf serve kb: worker ${w.process.pid} exited with ${how}; starting another`);
      replace();
    });
  };
  return { live, state, failed, supervise };
}

export async function startKbCluster(options: KbClusterOptions): Promise<RunningKbCluster> {
  setupWorkers(options.workerFile);
  // Port 0 (any free port) is chosen here, once, for every worker: node:cluster shares a socket per requested
  // port, so workers asking for 0 would get a new port after all of them had died and the socket was closed.
  const port = options.spec.server.port || (await freePort(options.spec.server.host ?? '127.0.0.1'));
  const o = { ...options, spec: { ...options.spec, server: { ...options.spec.server, port } } };
  const { live, state, failed, supervise } = supervisor(o);
  const started: Worker[] = [];
  try {
    const first = await startWorker({ ...o.spec, first: true });
    started.push(first.worker);
    const rest = Array.from({ length: o.workers - 1 }, () => startWorker({ ...o.spec }).then((r) => (started.push(r.worker), r)));
    const settled = await Promise.allSettled(rest);
    const refused = settled.find((s) => s.status === 'rejected');
    if (refused) throw refused.reason;
    for (const w of started) supervise(w);
    const ready = first.ready;
    return {
      url: ready.url,
      packages: ready.packages,
      lines: ready.lines,
      bench: ready.bench,
      cpuUsage: () => Promise.all([...live].map(askCpu)),
      failed,
      close: async () => {
        state.stopping = true;
        await Promise.all([...live].map(stopWorker));
      },
    };
  } catch (e) {
    state.stopping = true;
    await Promise.all(started.map(stopWorker));
    throw e;
  }
}
