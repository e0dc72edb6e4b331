/**
 * Offline stand-ins for the index-time roles (lib/index/knowledge-points.ts, lib/index/relations.ts):
 *   extraction  sentence-level knowledge points (title = leading entity/words, summary = the sentence)
 *   relations   every recalled pair typed 'similar' (no model to tell extends from contrasts)
 * Replies are JSON in the same shape the real prompts ask for (see tasks.ts).
 */
import type { ExtractionTask, RelationsTask } from './tasks';
import { contentWords, entities, sentences } from '../../util/text-rules';

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
