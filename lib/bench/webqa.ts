/**
 * WebQA loader (official `WebQA_train_val.json` / `WebQA_test.json`: one object
 * keyed by question guid). Not obtainable here; tested on a fixture written in
 * the official layout.
 *
 * Fields relied on, per record: `Q` (question, wrapped in literal double quotes),
 * `A` (list of answers, each wrapped in quotes; absent in the test file ->
 * answer null), `Qcate` (YesNo, number, color, shape, choose, Others, text),
 * `split` (train | val | test), `topic`, `Guid`, `txt_posFacts` / `txt_negFacts`
 * [{title, fact, url, snippet_id}], `img_posFacts` / `img_negFacts` [{image_id,
 * title, caption, url, imgUrl}]. Optional `Keywords_A` is kept in meta.
 *
 * Corpus: every fact of the loaded questions (positive and negative
 * distractors) becomes a passage: text facts by `snippet_id` (text = fact),
 * images by `image_id` (text = caption; pixels live in the official imgs.tsv,
 * referenced by meta.imageId). Gold documents = the positive facts.
 */
import type { AnswerFormat, BenchmarkData, CorpusPassage, Evidence, Question } from './types';
import { RecordReader, readJsonFile, unquote } from './read';

export interface WebqaPaths {
  data: string;
}

export interface WebqaOptions {
  /** Which split to keep (default 'val', the DualG-MRAG evaluation split); 'all' keeps every record. */
  split?: 'train' | 'val' | 'test' | 'all';
}

export function loadWebqa(paths: WebqaPaths, opts: WebqaOptions = {}): BenchmarkData {
  const split = opts.split ?? 'val';
  const file = paths.data;
  const r: RecordReader = new RecordReader(file, 'WebQA data');
  const top = r.object(readJsonFile(file, 'WebQA data'), 'top level', '(file)');
  const passages = new Map<string, CorpusPassage>();
  const questions: Question[] = [];
  for (const [guid, x] of Object.entries(top)) {
    const where = `record "${guid}"`;
    const rec = r.object(x, where);
    const recSplit = r.optStr(rec, 'split', where) ?? 'test';
    if (split !== 'all' && recSplit !== split) continue;
    const question = unquote(r.str(rec, 'Q', where));
    const answers = rec.A === undefined ? [] : r.strList(rec, 'A', where).map(unquote);
    const qcate = r.optStr(rec, 'Qcate', where) ?? '';
    const facts = (field: string, gold: boolean): Evidence[] => {
      return r.list(rec, field, where, { optional: true }).map((f, j) => {
        const fr = r.object(f, where, `${field}[${j}]`);
        const w = `${where} ${field}[${j}]`;
        const title = r.optStr(fr, 'title', w) ?? '';
        if (field.startsWith('img')) {
          const imageId = fr.image_id;
          if (typeof imageId !== 'number' && typeof imageId !== 'string') r.fail(w, 'image_id', 'is missing');
          const id = String(imageId);
          const caption = r.str(fr, 'caption', w, { allowEmpty: true });
          if (!passages.has(id)) {
            passages.set(id, {
              id,
              title,
              text: caption,
              meta: {
                kind: 'image',
                imageId,
                ...(typeof fr.url === 'string' ? { url: fr.url } : {}),
                ...(typeof fr.imgUrl === 'string' ? { imgUrl: fr.imgUrl } : {}),
              },
            });
          }
          return { doc: id, modality: 'image' as const, ...(gold ? { text: caption } : {}) };
        }
        const id = r.str(fr, 'snippet_id', w);
        const fact = r.str(fr, 'fact', w, { allowEmpty: true });
        if (!passages.has(id)) passages.set(id, { id, title, text: fact, meta: { kind: 'text', ...(typeof fr.url === 'string' ? { url: fr.url } : {}) } });
        return { doc: id, modality: 'text' as const, ...(gold ? { text: fact } : {}) };
      });
    };
    const pos = [...facts('img_posFacts', true), ...facts('txt_posFacts', true)];
    facts('img_negFacts', false);
    facts('txt_negFacts', false);
    const isImage = pos.some((e) => e.modality === 'image');
    const format: AnswerFormat = qcate === 'YesNo' ? 'yes-no' : qcate === 'number' ? 'number' : 'span';
    questions.push({
      id: typeof rec.Guid === 'string' && rec.Guid ? rec.Guid : guid,
      benchmark: 'webqa',
      question,
      answer: answers.length ? answers[0] : null,
      ...(answers.length > 1 ? { altAnswers: answers.slice(1) } : {}),
      format,
      goldDocs: [...new Set(pos.map((e) => e.doc))],
      evidence: pos,
      modality: isImage ? ['image'] : ['text'],
      hops: pos.length || undefined,
      type: qcate || undefined,
      meta: {
        split: recSplit,
        ...(typeof rec.topic === 'string' ? { topic: rec.topic } : {}),
        ...(rec.Keywords_A !== undefined ? { keywords: rec.Keywords_A } : {}),
      },
    });
  }
  return { name: 'webqa', questions, passages: [...passages.values()], recallLevel: 'document' };
}
