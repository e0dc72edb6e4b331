/**
 * MMQA image side (DualG-MRAG's MMQA setting, restricted to what ships here):
 * the dev questions whose gold supporting context is image-only, over a corpus
 * where every image is represented by its shipped machine caption (LLaVA, not
 * gold) as a passage. MMQA's text and table contents are not available.
 *
 * Files: `MMQA_dev.jsonl(.gz)` (see mmqa-records.ts), `MMQA_images.jsonl(.gz)`
 * ({id, title, url, path}: the Wikipedia entity the image illustrates) and
 * `image_captions_llava.json` ({image id: caption}).
 * Document id = MMQA image id; passage title = the image's entity title.
 */
import type { BenchmarkData, CorpusPassage, Question } from './types';
import { RecordReader, at, readJsonFile, readJsonLines } from './read';
import { mmqaQuestionBase, readMmqaRecords } from './mmqa-records';

export interface MmqaPaths {
  questions: string;
  images: string;
  captions: string;
}

export interface MmqaOptions {
  /** Which images become passages: every captioned image (default), or only the candidates of the loaded questions. */
  corpus?: 'all' | 'candidates';
  /** Keep only questions whose gold is image-only (default true; false keeps every question that has an image in its gold). */
  imageOnly?: boolean;
}

interface ImageMeta {
  id: string;
  title: string;
  url?: string;
  path?: string;
}

export function loadMmqa(paths: MmqaPaths, opts: MmqaOptions = {}): BenchmarkData {
  const imageOnly = opts.imageOnly ?? true;
  const records = readMmqaRecords(paths.questions, 'MMQA questions');

  const ri: RecordReader = new RecordReader(paths.images, 'MMQA image metadata');
  const images = new Map<string, ImageMeta>();
  readJsonLines(paths.images, 'MMQA image metadata').forEach((x, i) => {
    const rec = ri.object(x, at(i));
    const where = at(i, rec.id as string | undefined);
    const id = ri.str(rec, 'id', where);
    images.set(id, { id, title: ri.str(rec, 'title', where, { allowEmpty: true }), url: ri.optStr(rec, 'url', where), path: ri.optStr(rec, 'path', where) });
  });

  const rc: RecordReader = new RecordReader(paths.captions, 'MMQA image captions');
  const capRaw = rc.object(readJsonFile(paths.captions, 'MMQA image captions'), 'top level', '(file)');
  const captions = new Map<string, string>();
  for (const [id, c] of Object.entries(capRaw)) {
    if (typeof c !== 'string') rc.fail(`image ${id}`, '(caption)', 'must be a string');
    captions.set(id, c.trim());
  }

  const rq: RecordReader = new RecordReader(paths.questions, 'MMQA questions');
  const questions: Question[] = [];
  records.forEach((rec, i) => {
    const parts = new Set(rec.supporting.map((s) => s.part));
    const keep = imageOnly ? parts.size === 1 && parts.has('image') : parts.has('image');
    if (!keep) return;
    const gold = [...new Set(rec.supporting.filter((s) => s.part === 'image').map((s) => s.docId))];
    for (const g of gold) {
      if (!captions.has(g)) {
        rq.fail(
          at(i, rec.qid),
          'supporting_context',
          `names image ${g}, which has no caption in ${paths.captions}`,
          'use the caption file that belongs to these questions',
        );
      }
    }
    const base = mmqaQuestionBase(rec, 'mmqa');
    questions.push({
      ...base,
      goldDocs: gold,
      evidence: gold.map((doc) => ({ doc, modality: 'image', text: captions.get(doc) })),
      meta: { ...base.meta, candidateImages: rec.imageDocIds, goldImageTitles: gold.map((g) => images.get(g)?.title ?? '') },
    });
  });

  let ids: string[];
  if (opts.corpus === 'candidates') {
    ids = [...new Set(questions.flatMap((q) => q.meta.candidateImages as string[]))];
  } else {
    ids = [...captions.keys()];
  }
  const passages: CorpusPassage[] = [];
  for (const id of ids) {
    const caption = captions.get(id);
    if (caption === undefined) continue;
    const m = images.get(id);
    passages.push({
      id,
      title: m?.title ?? '',
      text: caption,
      meta: { kind: 'image', captionBy: 'llava', ...(m?.url ? { url: m.url } : {}), ...(m?.path ? { path: m.path } : {}) },
    });
  }
  return { name: 'mmqa', questions, passages, recallLevel: 'document' };
}
