/**
 * Offline stand-in for the DualG-MRAG query-pattern role: entity anchors as
 * condition triples around a wildcard target, and a visual budget when the
 * question is about images. The reply is JSON in the shape the real prompt asks
 * for (see tasks.ts).
 */
import type { PatternTask } from './tasks';
import { entities, questionKind, relationContentWords } from '../../util/text-rules';

export interface PatternJson {
  conditions: [string, string, string][];
  target: string;
  visual_budget: number;
}

export function parsePattern(task: PatternTask): PatternJson {
  const q = task.question ?? '';
  const ents = entities(q);
  const rel = relationContentWords(q, ents);
  const relation = rel.slice(0, 3).join(' ') || 'related to';
  const conditions: [string, string, string][] = ents.length ? ents.slice(0, 3).map((e) => ['?x', relation, e]) : [['?x', relation, '?y']];
  const kind = questionKind(q);
  const target = kind === 'span' || kind === 'list' ? `?x (${rel[0] ?? 'entity'})` : `?x (${kind})`;
  const visual = /\b(image|photo|picture|figure|logo|color|colour|look|shown|depicted|poster|cover|wearing|shape|painting|map)\b/i.test(q);
  return { conditions, target, visual_budget: visual ? Math.max(1, task.maxImages ?? 2) : 0 };
}
