/**
 * Several base URLs serving one stage (the replicas of a vLLM/sglang deployment):
 * each attempt goes to the least-loaded replica that is in rotation and not
 * paused by its breaker; a replica that fails (connection, timeout, 5xx, garbled
 * reply) leaves the rotation for its backoff and is tried again afterwards. The
 * retry layer above makes the next attempt, which therefore lands elsewhere.
 */
import { AttemptError } from './call-error';
import type { EndpointState } from './endpoint-state';
import type { ChatModel } from '../model-api/types';

export interface Replica {
  state: EndpointState;
  /** The replica's own stack (breaker gate, concurrency limit, attempt ledger, provider). */
  model: ChatModel;
}

/** A failure that says the replica, not the request, is broken (429/503 pause it instead; 4xx is the request's fault). */
function takesOut(e: AttemptError): boolean {
  if (e.kind === 'http') return (e.status ?? 0) >= 500 && e.status !== 503;
  return e.kind !== 'aborted';
}

function leastBy<T>(items: T[], key: (t: T) => number): T {
  return items.reduce((best, t) => (key(t) < key(best) ? t : best));
}

/** In rotation and not paused, else in rotation, else the one coming back soonest; then the least loaded, the less used on ties. */
export function pickReplica(replicas: Replica[], now: number): Replica {
  if (replicas.length === 1) return replicas[0];
  const inRotation = replicas.filter((r) => r.state.isIn(now));
  const open = inRotation.filter((r) => !r.state.breaker.paused);
  const pool = open.length ? open : inRotation.length ? inRotation : [leastBy(replicas, (r) => r.state.outUntil)];
  const lowest = Math.min(...pool.map((r) => r.state.load));
  return leastBy(
    pool.filter((r) => r.state.load === lowest),
    (r) => r.state.picks,
  );
}

export function replicaSetModel(replicas: Replica[], now: () => number = Date.now): ChatModel {
  if (!replicas.length) throw new Error('a replica set needs at least one replica');
  return {
    id: replicas[0].model.id,
    backend: replicas[0].model.backend,
    async chat(req, signal) {
      const r = pickReplica(replicas, now());
      r.state.picks++;
      try {
        const res = await r.model.chat(req, signal);
        r.state.restore();
        return res;
      } catch (e) {
        if (e instanceof AttemptError) {
          e.endpoint = r.state.label;
          if (takesOut(e)) r.state.takeOut(now());
        }
        throw e;
      }
    },
  };
}
