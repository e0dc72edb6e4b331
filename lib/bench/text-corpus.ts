/**
 * Titled-passage corpora of the text multi-hop sets (HippoRAG / fast-graphrag
 * layouts): either a list of `{title, text}` (2Wiki, MuSiQue) or an object
 * `title -> [sentence, ...]` (HotpotQA). The document id is the title.
 *
 * Several MuSiQue passages share a title (paragraphs of one Wikipedia article):
 * they are merged into one passage per title, paragraphs kept in file order and
 * separated by a blank line, so passage id = document id = title everywhere
 * (recall is document-level by title). Exact duplicate paragraphs are dropped.
 */
import type { CorpusPassage } from './types';
import { RecordReader, at, readJsonFile } from './read';

export interface TitledCorpus {
  passages: CorpusPassage[];
  /** For the title -> sentences layout: the sentences (supporting facts index them). */
  sentences: Map<string, string[]>;
}

export function loadTitledPassages(file: string, what: string): TitledCorpus {
  const r: RecordReader = new RecordReader(file, what);
  const raw = readJsonFile(file, what);
  const byTitle = new Map<string, string[]>();
  const sentences = new Map<string, string[]>();
  const add = (title: string, text: string) => {
    const paras = byTitle.get(title);
    if (!paras) byTitle.set(title, [text]);
    else if (!paras.includes(text)) paras.push(text);
  };
  if (Array.isArray(raw)) {
    raw.forEach((x, i) => {
      const rec = r.object(x, at(i));
      const where = at(i, typeof rec.title === 'string' ? rec.title : undefined);
      add(r.str(rec, 'title', where, { allowEmpty: true }), r.str(rec, 'text', where, { allowEmpty: true }));
    });
  } else if (raw && typeof raw === 'object') {
    for (const [title, v] of Object.entries(raw as Record<string, unknown>)) {
      const where = `title "${title}"`;
      if (typeof v === 'string') add(title, v);
      else if (Array.isArray(v)) {
        v.forEach((s, j) => {
          if (typeof s !== 'string') r.fail(where, `[${j}]`, 'must be a sentence string');
        });
        sentences.set(title, v as string[]);
        // HotpotQA sentences carry their own leading spaces: joining with '' restores the paragraph.
        add(title, (v as string[]).join('').trim());
      } else r.fail(where, '(value)', 'must be a text or a list of sentences');
    }
  } else {
    r.fail('top level', '(file)', 'must be a list of {title, text} or an object title -> sentences');
  }
  const out: CorpusPassage[] = [];
  for (const [title, paras] of byTitle) {
    const p: CorpusPassage = { id: title, title, text: paras.join('\n\n') };
    if (paras.length > 1) p.meta = { paragraphs: paras.length };
    out.push(p);
  }
  return { passages: out, sentences };
}
