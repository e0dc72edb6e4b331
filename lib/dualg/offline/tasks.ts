/**
 * Task payloads of the DualG-MRAG model roles (graph construction and query
 * parsing): what the offline handlers read instead of the prompt. Reply formats:
 *   openie      {"triples": [["head", "relation", "tail"], ...]}
 *   pattern     {"conditions": [["head", "relation", "tail"]], "target": "...", "visual_budget": k}  ("?x" = wildcard)
 */

// Task payloads are type aliases, not interfaces, so they are assignable to ChatRequest.task (Record<string, unknown>).

export type OpenIETask = {
  role: 'openie';
  text: string;
  fragmentId?: string;
  /** Most triples (default 20). */
  maxTriples?: number;
};

export type PatternTask = {
  role: 'pattern';
  question: string;
  /** Visual budget when the question is about images (default 2). */
  maxImages?: number;
};
