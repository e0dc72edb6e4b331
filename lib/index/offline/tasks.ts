/**
 * Task payloads of the index-time roles (lib/index/knowledge-points.ts,
 * lib/index/relations.ts): what the offline handlers read instead of the prompt.
 * Reply formats:
 *   extraction  {"points": [{"title", "summary", "fragment_id"}]}
 *   relations   {"relations": [{"from", "to", "type"}]}        (offline: type "similar")
 */

// Task payloads are type aliases, not interfaces, so they are assignable to ChatRequest.task (Record<string, unknown>).

export type ExtractionTask = {
  role: 'extraction';
  fragments: { id: string; text: string; section?: string[] }[];
  /** Most points per fragment (default 8). */
  maxPerFragment?: number;
};

export type RelationsTask = {
  role: 'relations';
  pairs: { from: string; to: string; similarity?: number; fromText?: string; toText?: string }[];
};
