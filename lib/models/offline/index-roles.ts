/**
 * Offline stand-ins for the index-time and query-parsing roles:
 *   extraction  sentence-level knowledge points (title = leading entity/words, summary = the sentence)
 *   relations   every recalled pair typed 'similar' (no model to tell extends from contrasts)
 *   openie      rule-based triples: consecutive capitalised entities in a sentence, the words between as relation
 *   pattern     DualG query pattern: entity anchors as condition triples around a wildcard target, a visual budget
 * Replies are JSON in the same shape the real prompts ask for (see tasks.ts).
 */
import type { ExtractionTask, OpenIETask, PatternTask, RelationsTask } from './tasks';
import { contentWords, entities, questionKind, relationWords, sentences, STOPWORDS } from './text';

export interface PointJson {
  title: string;
  summary: string;
  fragment_id: string;
}

export function extractPoints(task: ExtractionTask): { points: PointJson[] } {
  const max = task.maxPerFragment ?? 8;
  const points: PointJson[] = [];
  for (const f of task.fragments ?? []) {
    let n = 0;
    for (const s of sentences(f.text)) {
      if (n >= max) break;
      const words = s.split(/\s+/);
      if (words.length < 5) continue;
      const ent = entities(s)[0];
      const gist = contentWords(s).slice(0, 6).join(' ');
      const title = (ent && !gist.toLowerCase().startsWith(ent.toLowerCase()) ? `${ent}: ${gist}` : gist || words.slice(0, 8).join(' ')).slice(0, 80);
      points.push({ title, summary: s.length > 400 ? `${s.slice(0, 397)}...` : s, fragment_id: f.id });
      n++;
    }
  }
  return { points };
}

export function typeRelations(task: RelationsTask): { relations: { from: string; to: string; type: 'similar' }[] } {
  return { relations: (task.pairs ?? []).map((p) => ({ from: p.from, to: p.to, type: 'similar' as const })) };
}

function relationBetween(text: string): string {
  const words = text
    .replace(/[(),;:"“”]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .filter((w, i, arr) => !(i === arr.length - 1 && STOPWORDS.has(w.toLowerCase()) && !/^(of|by|in|on|at|to|from|with|for)$/i.test(w)));
  return words.slice(0, 6).join(' ').trim();
}

export function openIE(task: OpenIETask): { triples: [string, string, string][] } {
  const max = task.maxTriples ?? 20;
  const triples: [string, string, string][] = [];
  const seen = new Set<string>();
  for (const s of sentences(task.text ?? '')) {
    const ents = entities(s).map((e) => ({ e, i: s.indexOf(e) })).filter((x) => x.i >= 0).sort((a, b) => a.i - b.i);
    for (let k = 0; k + 1 < ents.length && triples.length < max; k++) {
      const a = ents[k];
      const b = ents[k + 1];
      const rel = relationBetween(s.slice(a.i + a.e.length, b.i));
      if (!rel || rel.split(' ').length > 6 || /^[,;.]*$/.test(rel)) continue;
      const key = `${a.e}\u0000${rel}\u0000${b.e}`.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      triples.push([a.e, rel, b.e]);
    }
    if (ents.length === 1 && triples.length < max) {
      // One entity: (entity, verb phrase, object phrase) from the rest of the sentence.
      const rest = s.slice(ents[0].i + ents[0].e.length).replace(/[.!?]+$/, '').trim();
      const m = /^(?:,[^,]*,\s*)?((?:is|was|are|were|has|had|have)\s+(?:\w+\s+)?(?:\w+ed|\w+en)?\s*(?:by|in|on|of|at|as|from|to)?|\w+(?:ed|es|s)\b(?:\s+(?:by|in|on|of|at|as|from|to))?)\s+(.{2,80})$/i.exec(rest);
      if (m) {
        const key = `${ents[0].e}\u0000${m[1]}\u0000${m[2]}`.toLowerCase();
        if (!seen.has(key)) {
          seen.add(key);
          triples.push([ents[0].e, m[1].replace(/\s+/g, ' ').trim(), m[2].trim()]);
        }
      }
    }
    if (triples.length >= max) break;
  }
  return { triples };
}

export interface PatternJson {
  conditions: [string, string, string][];
  target: string;
  visual_budget: number;
}

export function parsePattern(task: PatternTask): PatternJson {
  const q = task.question ?? '';
  const ents = entities(q);
  const rel = relationWords(q, ents);
  const relation = rel.slice(0, 3).join(' ') || 'related to';
  const conditions: [string, string, string][] = ents.length ? ents.slice(0, 3).map((e) => ['?x', relation, e]) : [['?x', relation, '?y']];
  const kind = questionKind(q);
  const target = kind === 'span' || kind === 'list' ? `?x (${rel[0] ?? 'entity'})` : `?x (${kind})`;
  const visual = /\b(image|photo|picture|figure|logo|color|colour|look|shown|depicted|poster|cover|wearing|shape|painting|map)\b/i.test(q);
  return { conditions, target, visual_budget: visual ? Math.max(1, task.maxImages ?? 2) : 0 };
}
