/**
 * `kf bench serve-kb`: how many searches a second `kf serve kb` answers over HTTP, and how fast, with
 * several runner processes sharing one index. The index is `kf bench retrieval`'s scaled demo world
 * (same build, same cache folder); the server runs in this process (`workers` 1) or in a cluster of worker
 * processes each opening the cached index (./cluster.ts), the clients in a child process
 * (each client one keep-alive connection sending the runner's search request, {query, topk,
 * score_fields}, and the next one when the answer is in). Latency is the client's, request to last
 * byte, query embedding included. The server's CPU time per search is reported beside the rates: on a
 * machine shared with other work, the rates fall with the load and the CPU time much less. A benchmark,
 * not a test: the figures depend on the machine.
 */
import * as os from 'node:os';
import { spawn } from 'node:child_process';
import type { OfflineEmbedderName } from '../index/embedders/registry';
import { KfError } from '../util/errors';
import { percentile } from '../util/percentile';
import { BENCH_UUID, openBenchWorld, type BenchWorld, type BenchWorldSource } from './bench-world';
import { startKbCluster } from './cluster';
import { startKbServer } from './server';

export interface ServeBenchOptions {
  fragments: number;
  /** Server processes (default 1: the server runs in this process; more: a cluster, ./cluster.ts). */
  workers?: number;
  /** With several workers: the file each runs (the CLI's lib/cli/serve-kb-worker.ts). */
  workerFile?: string;
  /** Concurrent clients (default 8). */
  clients?: number;
  /** Timed searches in all (default 2000), after `warmup` untimed ones (default 100). */
  requests?: number;
  /** Then the same searches offered at this many a second in all (paced, default 200): latency at that load. */
  rate?: number;
  warmup?: number;
  topk?: number;
  seed?: string;
  embedder?: OfflineEmbedderName;
  cacheDir?: string;
  progress?: (line: string) => void;
}

export interface LatencyMs {
  p50: number;
  p90: number;
  p99: number;
  mean: number;
}

export interface ServeBenchReport {
  fragments: number;
  documents: number;
  /** Server processes answering (1: the server ran in the bench's own process). */
  workers: number;
  clients: number;
  requests: number;
  topk: number;
  /** Closed loop: every client sends its next search when the last is answered (the most the server does). */
  seconds: number;
  searchesPerSecond: number;
  latencyMs: LatencyMs;
  /** Paced: the searches offered at `rate` a second in all, each client on its own schedule (latency at that load). */
  paced: { rate: number; searchesPerSecond: number; latencyMs: LatencyMs };
  errors: number;
  /** The server's CPU time (user + system) per search, over every search sent (warm-up included), summed over its processes. */
  serverCpuMsPerSearch: number;
  /** The same per process: each worker, then (several workers) the primary that hands them the connections. */
  serverCpuMsPerSearchEach: number[];
  /** Load average (1 min) when the clients finished: other work on the machine. */
  loadAverage: number;
  indexFromCache: boolean;
  cpus: number;
  node: string;
}

/** The clients (plain JS, run by a child node): each sends its share of the searches one after another. */
const CLIENTS_JS = `
const http = require('node:http');
let w;
let agent;
function once(query) {
  return new Promise((resolve) => {
    const body = JSON.stringify({ query, topk: w.topk, score_fields: true });
    const t0 = process.hrtime.bigint();
    const req = http.request(w.url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, ok: res.statusCode === 200 }));
    });
    req.on('error', () => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, ok: false }));
    req.end(body);
  });
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// rate 0: closed loop; else search i is due at i / rate seconds, client (i mod clients) sends it then (or late).
async function phase(n, rate) {
  let next = 0;
  const ms = [];
  let errors = 0;
  const t0 = process.hrtime.bigint();
  const now = () => Number(process.hrtime.bigint() - t0) / 1e6;
  await Promise.all(Array.from({ length: w.clients }, async () => {
    for (let i = next++; i < n; i = next++) {
      if (rate) { const wait = (i * 1000) / rate - now(); if (wait > 0) await sleep(wait); }
      const r = await once(w.queries[i % w.queries.length]);
      if (r.ok) ms.push(r.ms); else errors++;
    }
  }));
  return { ms, errors, seconds: now() / 1000 };
}
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', async () => {
  w = JSON.parse(input);
  agent = new http.Agent({ keepAlive: true, maxSockets: w.clients });
  await phase(w.warmup, 0);
  const closed = await phase(w.requests, 0);
  const paced = await phase(w.requests, w.rate);
  process.stdout.write(JSON.stringify({ closed, paced }));
  agent.destroy();
});
`;

interface Phase {
  ms: number[];
  errors: number;
  seconds: number;
}

/** The clients in a child process (so this process's CPU time is the server's alone). */
function runClients(data: { url: string; clients: number; topk: number; warmup: number; requests: number; rate: number; queries: string[] }) {
  return new Promise<{ closed: Phase; paced: Phase }>((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CLIENTS_JS], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`the client process exited with ${code}`));
      resolve(JSON.parse(out) as { closed: Phase; paced: Phase });
    });
    child.stdin.end(JSON.stringify(data));
  });
}

const round = (x: number | null | undefined) => Math.round((x ?? NaN) * 100) / 100;

function latency(ms: number[]): LatencyMs {
  return {
    p50: round(percentile(ms, 0.5)),
    p90: round(percentile(ms, 0.9)),
    p99: round(percentile(ms, 0.99)),
    mean: round(ms.reduce((a, b) => a + b, 0) / (ms.length || 1)),
  };
}

/** The served side: in this process (one worker) or a cluster of worker processes; `cpu()` is its CPU time so far (ms). */
interface Served {
  url: string;
  world: Omit<BenchWorld, 'pkg'>;
  cpu(): Promise<number[]>;
  close(): Promise<void>;
}

const cpuMs = (c: { user: number; system: number }) => (c.user + c.system) / 1000;

async function serveInProcess(src: BenchWorldSource, say: (line: string) => void): Promise<Served> {
  const { pkg, ...world } = await openBenchWorld(src, say);
  const server = await startKbServer({ packages: [pkg], port: 0 });
  return { url: server.url, world, cpu: async () => [cpuMs(process.cpuUsage())], close: () => server.close() };
}

/** Worker CPU times, then this process's (it hands each connection to a worker). */
async function serveWorkers(src: BenchWorldSource, o: ServeBenchOptions, say: (line: string) => void): Promise<Served> {
  if (!o.workerFile) throw new KfError('serve_worker_file', 'several workers need the worker entry file', 'pass workerFile (lib/cli/serve-kb-worker.ts)');
  const progress = !!o.progress;
  const c = await startKbCluster({
    workers: o.workers!,
    workerFile: o.workerFile,
    spec: { server: { port: 0 }, source: { kind: 'bench', progress, ...src } },
    log: say,
  });
  return {
    url: c.url,
    world: c.bench!,
    cpu: async () => [...(await c.cpuUsage()).map(cpuMs), cpuMs(process.cpuUsage())],
    close: () => c.close(),
  };
}

export async function benchServeKb(o: ServeBenchOptions): Promise<ServeBenchReport> {
  const say = o.progress ?? (() => undefined);
  const clients = o.clients ?? 8;
  const requests = o.requests ?? 2000;
  const topk = o.topk ?? 8;
  const workers = o.workers ?? 1;
  const src: BenchWorldSource = { fragments: o.fragments, topk, seed: o.seed, embedder: o.embedder, cacheDir: o.cacheDir };
  const served = workers > 1 ? await serveWorkers(src, o, say) : await serveInProcess(src, say);
  const world = served.world;
  try {
    say(
      `serving ${world.fragments} fragments at ${served.url} (${workers} worker${workers > 1 ? 's' : ''}); ${clients} clients, ${o.warmup ?? 100} warm-up + ${requests} closed-loop + ${requests} paced searches`,
    );
    const url = `${served.url}/api/v2/kb/${BENCH_UUID}/search`;
    const rate = o.rate ?? 200;
    const cpu0 = await served.cpu();
    const r = await runClients({ url, clients, topk, warmup: o.warmup ?? 100, requests, rate, queries: world.queries });
    const perSearch = (await served.cpu()).map((c, i) => round((c - cpu0[i]) / ((o.warmup ?? 100) + 2 * requests)));
    return {
      fragments: world.fragments,
      documents: world.documents,
      workers,
      clients,
      requests,
      topk,
      seconds: round(r.closed.seconds),
      searchesPerSecond: round(r.closed.ms.length / r.closed.seconds),
      latencyMs: latency(r.closed.ms),
      paced: { rate, searchesPerSecond: round(r.paced.ms.length / r.paced.seconds), latencyMs: latency(r.paced.ms) },
      errors: r.closed.errors + r.paced.errors,
      serverCpuMsPerSearch: round(perSearch.reduce((a, b) => a + b, 0)),
      serverCpuMsPerSearchEach: perSearch,
      loadAverage: round(os.loadavg()[0]),
      indexFromCache: world.fromCache,
      cpus: os.cpus().length,
      node: process.version,
    };
  } finally {
    await served.close();
  }
}
