/**
 * Offline stand-in for the DualG-MRAG OpenIE role (graph construction): rule-based
 * triples: consecutive capitalised entities in a sentence, the words between as
 * the relation; a sentence with one entity gives (entity, verb phrase, object).
 * The reply is JSON in the shape the real prompt asks for (see tasks.ts).
 */
import type { OpenIETask } from './tasks';
import { entities, sentences, STOPWORDS } from '../../util/text-rules';

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
    const ents = entities(s)
      .map((e) => ({ e, i: s.indexOf(e) }))
      .filter((x) => x.i >= 0)
      .sort((a, b) => a.i - b.i);
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
      const rest = s
        .slice(ents[0].i + ents[0].e.length)
        .replace(/[.!?]+$/, '')
        .trim();
      const m =
        /^(?:,[^,]*,\s*)?((?:is|was|are|were|has|had|have)\s+(?:\w+\s+)?(?:\w+ed|\w+en)?\s*(?:by|in|on|of|at|as|from|to)?|\w+(?:ed|es|s)\b(?:\s+(?:by|in|on|of|at|as|from|to))?)\s+(.{2,80})$/i.exec(
          rest,
        );
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
