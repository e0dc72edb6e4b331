/** Abort plumbing of the runner: joined signals, and racing a promise against a signal. */

/** Thrown when a question's signal fired (the runner tells a user abort from a timeout by which signal fired). */
export class Aborted extends Error {}

/** A signal that aborts when either does, and a dispose that detaches it (no listener piles up on a run-wide signal). */
export function anySignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const c = new AbortController();
  const onA = () => c.abort(a.reason);
  const onB = () => c.abort(b.reason);
  if (a.aborted) c.abort(a.reason);
  else if (b.aborted) c.abort(b.reason);
  a.addEventListener('abort', onA, { once: true });
  b.addEventListener('abort', onB, { once: true });
  return {
    signal: c.signal,
    dispose: () => {
      a.removeEventListener('abort', onA);
      b.removeEventListener('abort', onB);
    },
  };
}

/** Settle with the promise, or reject as soon as the signal fires (a pipeline that ignores its signal cannot hang the run). */
export function raceSignal<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Aborted('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Aborted('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
