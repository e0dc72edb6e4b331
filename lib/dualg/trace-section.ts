/**
 * DualG-MRAG's part of the printed trace (lib/pipeline/trace-section.ts): the paths its graph
 * searches decoded, printed after the answer by `kf ask` and after the header by `kf trace`.
 */
import type { EvidencePath } from './paths/evidence-path';
import type { TraceSection } from '../pipeline/trace-section';
import type { TraceEvent } from '../pipeline/types';
import { serializePaths } from './paths/serialize';

/** The decoded paths of the graph searches (DualG-MRAG), as text; undefined when no search traced any. */
export function decodedPaths(events: readonly TraceEvent[], maxPaths = 3): string | undefined {
  const found = events.filter((e) => e.kind === 'search' && Array.isArray(e.paths)).flatMap((e) => e.paths as EvidencePath[]);
  if (!found.length) return undefined;
  // Best score first over all searches (ties keep search order).
  const paths = found
    .map((p, i) => ({ p, i }))
    .sort((a, b) => b.p.score - a.p.score || a.i - b.i)
    .map((x) => x.p);
  return serializePaths(paths, { maxPaths, snippetChars: 120 });
}

export const DUALG_TRACE: TraceSection = { after: { title: 'decoded paths', label: 'DualG', text: (events) => decodedPaths(events) } };
