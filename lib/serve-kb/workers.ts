/** `--workers N | auto` of `kf serve kb` and `kf bench serve-kb`: how many server processes (auto: one per CPU). */
import * as os from 'node:os';

export const workersOk = (v: string) =>
  v === 'auto' || (/^\d+$/.test(v) && Number(v) >= 1) ? undefined : `expected a number of processes (1 or more) or auto, got "${v}"`;

export const workerCount = (v: string): number => (v === 'auto' ? os.availableParallelism() : Number(v));
