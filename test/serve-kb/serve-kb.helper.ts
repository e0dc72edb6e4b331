/**
 * `kf serve kb` as the tests run it: the compiled CLI in a child process (the remote view's lookups
 * block the test's own thread, so the server cannot share it), on a free loopback port. Resolves with
 * the server root once it prints its listening line; `stop()` sends SIGINT and waits for the exit.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { repoRoot } from '../../lib/util/paths';

export interface ServedKb {
  baseUrl: string;
  /** The server's process (with --workers N: the primary). */
  pid: number;
  /** What the server printed on stderr so far. */
  err(): string;
  stop(): Promise<number | null>;
}

export function startServeKb(args: string[]): Promise<ServedKb> {
  const child = spawn(process.execPath, [path.join(repoRoot(), 'bin', 'kf.js'), 'serve', 'kb', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, KF_TSX: '' },
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /at (http:\/\/[^/\s]+)\/api/.exec(out);
      if (m)
        resolve({
          baseUrl: m[1],
          pid: child.pid!,
          err: () => err,
          stop: async () => {
            child.kill('SIGINT');
            return exited;
          },
        });
    });
    void exited.then((code) => reject(new Error(`kf serve kb exited with ${code} before listening: ${err}`)));
  });
}
