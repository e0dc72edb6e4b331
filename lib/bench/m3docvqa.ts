/**
 * M3DocVQA loader (official layout of bloomberg/m3docrag's m3docvqa package):
 * questions are MultiModalQA's `MMQA_dev.jsonl` records (see mmqa-records.ts),
 * the corpus is a folder of Wikipedia PDFs `pdfs_dev/<doc_id>.pdf`, one per
 * supporting-context doc id (text, table and image ids of MMQA; the package
 * renders each id's Wikipedia URL to a PDF). Gold documents = the question's
 * `supporting_context` doc ids = PDF names without `.pdf` (lib/corpus names
 * documents by their path without extension).
 *
 * Some PDFs failed to download upstream (3,368 of the dev ids exist): with a
 * PDF folder given, gold ids without a PDF are dropped from `goldDocs` and listed
 * in `meta.goldMissing` (the question stays: it is still scored on its answer).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BenchmarkData, Question } from './types';
import { mmqaQuestionBase, readMmqaRecords } from './mmqa-records';
import { KfError } from '../util/errors';

export interface M3docvqaPaths {
  /** MMQA_dev.jsonl (or .jsonl.gz, or a holdout file in the same layout). */
  questions: string;
  /** Folder of `<doc_id>.pdf` (corpusDir). */
  pdfs?: string;
}

export function loadM3docvqa(paths: M3docvqaPaths): BenchmarkData {
  const records = readMmqaRecords(paths.questions, 'M3DocVQA questions');
  let available: Set<string> | undefined;
  if (paths.pdfs) {
    let names: string[];
    try {
      names = fs.readdirSync(paths.pdfs);
    } catch (e) {
      throw new KfError(
        'bench_file_missing',
        `M3DocVQA PDF folder ${paths.pdfs} cannot be read (${(e as NodeJS.ErrnoException).code})`,
        'point at the pdfs_dev folder of M3DocVQA',
        { concerns: paths.pdfs, cause: e },
      );
    }
    available = new Set(names.filter((n) => n.toLowerCase().endsWith('.pdf')).map((n) => n.slice(0, -4)));
  }
  const questions = records.map((rec): Question => {
    const base = mmqaQuestionBase(rec, 'm3docvqa');
    const gold = [...new Set(rec.supporting.map((s) => s.docId))];
    const kept = available ? gold.filter((g) => available!.has(g)) : gold;
    const missing = gold.filter((g) => !kept.includes(g));
    const partOf = new Map(rec.supporting.map((s) => [s.docId, s.part]));
    return {
      ...base,
      goldDocs: kept,
      evidence: kept.map((doc) => ({ doc, modality: partOf.get(doc) })),
      meta: { ...base.meta, supportingParts: rec.supporting.map((s) => s.part), ...(missing.length ? { goldMissing: missing } : {}) },
    };
  });
  return { name: 'm3docvqa', questions, corpusDir: paths.pdfs ? path.resolve(paths.pdfs) : undefined, recallLevel: 'document' };
}
