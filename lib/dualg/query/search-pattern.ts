/**
 * The query pattern DualG-MRAG's pattern stage parsed, handed to its own graph retrievers in the
 * method-neutral search options (`KbSearchOptions.extra`, key `pattern`). Only DualG's files
 * write and read that key, through `withPattern` and `searchPattern`.
 */
import type { KbSearchOptions } from '../../pipeline/knowledge-base';

/** Condition triples, who parsed them and, when a model did, the entities it named. */
export interface SearchPattern {
  conditions: [string, string, string][];
  by: string;
  entities?: string[];
}

/** The `extra` of search options that carry this pattern. */
export function withPattern(pattern: SearchPattern): { pattern: SearchPattern } {
  return { pattern };
}

/** The pattern the caller parsed; undefined when none was given (kf eval retrieval, the tools: the rule stand-in parses). */
export function searchPattern(opts: KbSearchOptions): SearchPattern | undefined {
  const p = opts.extra?.pattern as SearchPattern | undefined;
  return p && typeof p === 'object' && Array.isArray(p.conditions) ? p : undefined;
}
