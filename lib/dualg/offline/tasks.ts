/**
 * Task payloads of the DualG-MRAG model roles (graph construction and query
 * parsing): what the offline handlers read instead of the prompt. Reply formats:
 *   openie      {"triples": [["head", "relation", "tail"], ...]}
 *   pattern     {"conditions": [["head", "relation", "tail"]], "target": "...", "visual_budget": k}  ("?x" = wildcard)
 *   micro-vision {"facts": [{"subject": "...", "relation": "...", "object": "..."}, ...]}  (stage `vision`)
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

/** One image asset to parse into micro facts (lib/dualg/graph/micro-vision.ts); offline, its OCR text and caption stand in for the pixels. */
export type MicroVisionTask = {
  role: 'micro-vision';
  fragmentId: string;
  docTitle: string;
  label?: string;
  caption?: string;
  ocrText?: string;
  /** Most facts (default 24). */
  maxFacts?: number;
};

/** WebQA's complexity self-check (lib/dualg/complexity.ts). Reply: SIMPLE or COMPLEX. */
export type ComplexityTask = {
  role: 'dualg-complexity';
  question: string;
};

/** ScienceQA's choice between the answer with and the answer without retrieval (lib/dualg/candidates.ts). Reply: "KEEP: n" + FINAL ANSWER line. */
export type ChooseTask = {
  role: 'dualg-choose';
  question: string;
  options: string[];
  /** The FINAL ANSWER values of the candidates: [with retrieval, without retrieval]. */
  candidates: [string, string];
};
