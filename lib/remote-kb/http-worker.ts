/**
 * The thread behind SyncHttp (sync-http.ts): it performs each request it is
 * handed with fetch, posts the outcome on the shared port, then bumps the
 * shared counter so the blocked caller wakes up and reads it.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { sendAsync, type HttpRequest } from './http';

interface Setup {
  port: MessagePort;
  flag: SharedArrayBuffer;
}

parentPort?.once('message', ({ port, flag }: Setup) => {
  const signal = new Int32Array(flag);
  port.on('message', (job: { id: number; req: HttpRequest }) => {
    void sendAsync(job.req).then((outcome) => {
      port.postMessage({ id: job.id, outcome });
      Atomics.add(signal, 0, 1);
      Atomics.notify(signal, 0);
    });
  });
});
