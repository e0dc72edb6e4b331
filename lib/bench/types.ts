/**
 * One normalised question shape for every benchmark (raw formats in, this out).
 * Loaders keep anything benchmark-specific in `meta`; buckets can use any field.
 */

export type Modality = 'text' | 'table' | 'image';

/** Answer formats. span/number/yes-no/list/unanswerable are ours; MMLongBench-Doc's own (Int/Float/Str/List/None) go in meta.answerFormat too. */
export type AnswerFormat = 'span' | 'number' | 'yes-no' | 'list' | 'unanswerable';

export interface Evidence {
  doc: string;
  page?: number;
  modality?: Modality;
  /** Evidence text when the benchmark gives it (a fact sentence, a caption). */
  text?: string;
}

export interface Question {
  id: string;
  benchmark: string;
  question: string;
  /** Gold answer; a list for multi-part answers; null when the benchmark ships none (2Wiki dev here). */
  answer: string | string[] | null;
  /** Other accepted gold answers (MMQA lists several). */
  altAnswers?: string[];
  format: AnswerFormat;
  /** Gold supporting documents (ids in the corpus). Empty = excluded from retrieval recall. */
  goldDocs: string[];
  /** Gold pages for page-level recall (MMLongBench-Doc: pages of `doc`, 1-based). */
  goldPages?: number[];
  evidence: Evidence[];
  modality: Modality[];
  hops?: number;
  /** Benchmark question type (MultiHop-RAG inference/comparison/temporal/null, 2Wiki bridge/compositional, ...). */
  type?: string;
  /** Single-document benchmarks: the document the question is about (one index per document). */
  doc?: string;
  meta: Record<string, unknown>;
}

/** A corpus document as benchmarks give it (text passages); PDFs and files are ingested by lib/corpus instead. */
export interface CorpusPassage {
  id: string;
  title: string;
  text: string;
  meta?: Record<string, unknown>;
}

export interface BenchmarkData {
  name: string;
  questions: Question[];
  /** Passages for text corpora; absent when the corpus is a directory of files. */
  passages?: CorpusPassage[];
  /** Directory of files (PDF/HTML/MD) when the corpus is files. */
  corpusDir?: string;
  /** Recall granularity: document-level, or page-level (MMLongBench-Doc). */
  recallLevel: 'document' | 'page';
  /**
   * Also score page-level recall beside the document level (keys prefixed `page:`) for the questions
   * that give gold pages (your own data over PDFs).
   */
  pageRecall?: boolean;
  /** What a run says once about scoring this data (e.g. why page recall does not apply): printed with its outcome, kept in its manifest. */
  notes?: string[];
}
