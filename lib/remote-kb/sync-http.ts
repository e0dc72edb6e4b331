/**
 * Synchronous HTTP for the knowledge-base view. The KnowledgeBase interface
 * (lib/pipeline/knowledge-base.ts) answers lookups (fragment, toc, tables,
 * media, ...) synchronously, because the local index holds them in memory;
 * a hosted knowledge base has them behind HTTP. A worker thread performs the
 * request while the caller waits on a shared flag (Atomics.wait), so every
 * lookup maps 1:1 onto its endpoint with the same semantics as the local view.
 * The wait blocks this thread: answers are cached (the hosted bases are
 * read-only), and search, the frequent call, stays asynchronous.
 */
import * as path from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { HttpOutcome, HttpRequest } from './http';

/** Extra time the caller waits beyond the request's own timeout before giving up on the worker. */
const WORKER_GRACE_MS = 5_000;

export class SyncHttp {
  private worker?: Worker;
  private port?: MessagePort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private seq = 0;

  private start(): MessagePort {
    if (this.port) return this.port;
    // Compiled: http-worker.js beside this file; under tsx: http-worker.ts (the worker inherits tsx's loader).
    const file = path.join(__dirname, `http-worker${path.extname(__filename)}`);
    const { port1, port2 } = new MessageChannel();
    this.worker = new Worker(file);
    this.worker.unref();
    this.worker.postMessage({ port: port2, flag: this.flag.buffer }, [port2]);
    port1.unref();
    this.port = port1;
    return port1;
  }

  /** Perform one request and wait for its outcome. */
  request(req: HttpRequest): HttpOutcome {
    const port = this.start();
    const id = ++this.seq;
    port.postMessage({ id, req });
    const deadline = Date.now() + req.timeoutMs + WORKER_GRACE_MS;
    for (;;) {
      // The worker bumps the counter after posting: read it first, then drain, then wait only if it has not moved.
      const seen = Atomics.load(this.flag, 0);
      for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
        const msg = m.message as { id: number; outcome: HttpOutcome };
        if (msg.id === id) return msg.outcome; // answers to earlier, abandoned requests are dropped
      }
      const left = deadline - Date.now();
      if (left <= 0) return { ok: false, timedOut: true, message: `no answer within ${req.timeoutMs} ms` };
      Atomics.wait(this.flag, 0, seen, left);
    }
  }

  /** Stop the worker thread (a later request starts a new one). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.port?.close();
    this.port = undefined;
    if (w) await w.terminate();
  }
}
