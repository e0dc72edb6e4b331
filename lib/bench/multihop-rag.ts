/**
 * MultiHop-RAG loader. Two question layouts are accepted:
 * - official `MultiHopRAG.json`: a list of {query, answer, question_type,
 *   evidence_list: [{title, author, url, source, category, published_at, fact}]};
 * - the search-datasets split shipped here: `queries500.json` {queries: [{id,
 *   question, question_type}]} + `ground_truth500.json` {id: {answer, evidence_list}}.
 * Question id = first 16 hex of md5(query) (the KnowForge runner's id; the
 * file's own id goes to meta.sourceId). Types: inference, comparison, temporal,
 * null (the `_query` suffix is dropped). Null questions: answer "Insufficient
 * information.", no gold documents.
 *
 * Documents: the KnowForge runner turns each article into a Markdown file named
 * `<YYYY-MM-DD>_<source>_<title>` (characters \ / : * ? " < > | become spaces,
 * spaces collapse, source cut to 40 and title to 80 characters, trailing dots
 * dropped); its index `mhr_md_index.json` maps url / squashed title to that name.
 * The document id of an article is that name: from the index when given, else
 * derived by the same rule (checked to reproduce all 326 indexed articles cited here).
 *
 * Corpus (optional; absent here): official `corpus.json`, a list of {title,
 * author, source, published_at, category, url, body}.
 */
import type { BenchmarkData, CorpusPassage, Evidence, Question } from './types';
import { RecordReader, at, readJsonFile, uniq } from './read';
import { md5 } from '../util/hash';
import { KfError } from '../util/errors';

export interface MultihopRagPaths {
  /** MultiHopRAG.json (official) or queries500.json (search-datasets layout). */
  queries: string;
  /** ground_truth500.json; required with the search-datasets layout. */
  groundTruth?: string;
  /** Official corpus.json. */
  corpus?: string;
  /** knowforge-subsets/mhr_md_index.json. */
  mdIndex?: string;
}

export interface MhrMdIndex {
  byUrl: Map<string, string>;
  byTitle: Map<string, string>;
}

export interface MhrArticleRef {
  title: string;
  source: string;
  published_at: string;
  url?: string;
}

export const MHR_TYPES = ['inference', 'comparison', 'temporal', 'null'] as const;

export function mhrQuestionId(query: string): string {
  return md5(query).slice(0, 16);
}

/** The runner's squashed title key: lowercase letters and digits only, first 60. */
export function mhrTitleKey(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 60);
}

function sanitize(s: string): string {
  return s
    .replace(/[\\/:*?"<>|]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Document name of an article by the runner's rule (see the header). */
export function mhrDerivedDocName(a: MhrArticleRef): string {
  const title = sanitize(a.title).slice(0, 80).trim().replace(/\.+$/, '').trim();
  return `${a.published_at.slice(0, 10)}_${sanitize(a.source).slice(0, 40).trim()}_${title}`;
}

export function mhrDocId(a: MhrArticleRef, index?: MhrMdIndex): string {
  if (index) {
    const byUrl = a.url ? index.byUrl.get(a.url) : undefined;
    if (byUrl) return byUrl;
    const byTitle = index.byTitle.get(mhrTitleKey(a.title));
    if (byTitle) return byTitle;
  }
  return mhrDerivedDocName(a);
}

export function loadMhrMdIndex(file: string): MhrMdIndex {
  const r: RecordReader = new RecordReader(file, 'MultiHop-RAG md index');
  const raw = r.object(readJsonFile(file, 'MultiHop-RAG md index'), 'top level', '(file)');
  const toMap = (field: string) => {
    const o = r.object(raw[field], 'top level', field);
    const m = new Map<string, string>();
    for (const [k, v] of Object.entries(o)) {
      if (typeof v !== 'string') r.fail(`${field}["${k}"]`, '(value)', 'must be a document name string');
      m.set(k, v);
    }
    return m;
  };
  return { byUrl: toMap('by_url'), byTitle: toMap('by_title') };
}

interface RawQuestion {
  query: string;
  answer: string;
  type: string;
  evidence: unknown[];
  sourceId?: string;
  where: string;
  file: string;
}

export function loadMultihopRag(paths: MultihopRagPaths): BenchmarkData {
  const index = paths.mdIndex ? loadMhrMdIndex(paths.mdIndex) : undefined;
  const raws = readQuestions(paths);
  const seen = new Map<string, string>();
  const questions = raws.map((q): Question => {
    const r: RecordReader = new RecordReader(q.file, 'MultiHop-RAG questions');
    const id = mhrQuestionId(q.query);
    if (seen.has(id)) r.fail(q.where, 'query', `repeats the query of ${seen.get(id)} (ids are md5 of the query)`);
    seen.set(id, q.where);
    const type = q.type.replace(/_query$/, '');
    if (!(MHR_TYPES as readonly string[]).includes(type))
      r.fail(q.where, 'question_type', `must be inference/comparison/temporal/null(_query), got "${q.type}"`);
    const evidence: Evidence[] = q.evidence.map((e, j) => {
      const er = r.object(e, q.where, `evidence_list[${j}]`);
      const w = `${q.where} evidence_list[${j}]`;
      const ref: MhrArticleRef = {
        title: r.str(er, 'title', w),
        source: r.str(er, 'source', w),
        published_at: r.str(er, 'published_at', w),
        url: r.optStr(er, 'url', w),
      };
      return { doc: mhrDocId(ref, index), modality: 'text', text: r.optStr(er, 'fact', w) ?? '' };
    });
    const goldDocs = uniq(evidence.map((e) => e.doc));
    return {
      id,
      benchmark: 'multihop-rag',
      question: q.query,
      answer: q.answer,
      format: type === 'null' ? 'unanswerable' : /^(yes|no)\.?$/i.test(q.answer.trim()) ? 'yes-no' : 'span',
      goldDocs,
      evidence,
      modality: ['text'],
      hops: goldDocs.length || undefined,
      type,
      meta: { ...(q.sourceId !== undefined ? { sourceId: q.sourceId } : {}), questionType: q.type },
    };
  });
  const passages = paths.corpus ? loadMhrCorpus(paths.corpus, index) : undefined;
  return { name: 'multihop-rag', questions, passages, recallLevel: 'document' };
}

function readQuestions(paths: MultihopRagPaths): RawQuestion[] {
  const file = paths.queries;
  const r: RecordReader = new RecordReader(file, 'MultiHop-RAG questions');
  const raw = readJsonFile(file, 'MultiHop-RAG questions');
  if (Array.isArray(raw)) {
    // Official MultiHopRAG.json.
    return raw.map((x, i) => {
      const rec = r.object(x, at(i));
      const where = at(i);
      return {
        query: r.str(rec, 'query', where),
        answer: r.str(rec, 'answer', where, { allowEmpty: true }),
        type: r.str(rec, 'question_type', where),
        evidence: r.list(rec, 'evidence_list', where),
        where,
        file,
      };
    });
  }
  const top = r.object(raw, 'top level', '(file)');
  const list = r.list(top, 'queries', 'top level');
  if (!paths.groundTruth) {
    throw new KfError(
      'bench_missing_file',
      `MultiHop-RAG questions ${file} are in the queries-only layout and need their ground-truth file`,
      'pass groundTruth (ground_truth500.json beside it)',
      { concerns: file },
    );
  }
  const gtFile = paths.groundTruth;
  const g: RecordReader = new RecordReader(gtFile, 'MultiHop-RAG ground truth');
  const gt = g.object(readJsonFile(gtFile, 'MultiHop-RAG ground truth'), 'top level', '(file)');
  return list.map((x, i) => {
    const rec = r.object(x, at(i));
    const where = at(i, rec.id as string | undefined);
    const sourceId = typeof rec.id === 'number' ? String(rec.id) : r.str(rec, 'id', where);
    const truth = gt[sourceId];
    if (truth === undefined) r.fail(where, 'id', `has no entry in ${gtFile}`, 'use the ground-truth file that belongs to these queries');
    const tr = g.object(truth, `entry "${sourceId}"`);
    return {
      query: r.str(rec, 'question', where),
      answer: g.str(tr, 'answer', `entry "${sourceId}"`, { allowEmpty: true }),
      type: r.str(rec, 'question_type', where),
      evidence: g.list(tr, 'evidence_list', `entry "${sourceId}"`),
      sourceId,
      where,
      file,
    };
  });
}

export function loadMhrCorpus(file: string, index?: MhrMdIndex): CorpusPassage[] {
  const r: RecordReader = new RecordReader(file, 'MultiHop-RAG corpus');
  const list = r.array(readJsonFile(file, 'MultiHop-RAG corpus'), 'top level', '(file)');
  const seen = new Map<string, string>();
  return list.map((x, i) => {
    const rec = r.object(x, at(i));
    const where = at(i);
    const ref: MhrArticleRef = {
      title: r.str(rec, 'title', where),
      source: r.str(rec, 'source', where),
      published_at: r.str(rec, 'published_at', where),
      url: r.optStr(rec, 'url', where),
    };
    const id = mhrDocId(ref, index);
    if (seen.has(id)) r.fail(where, 'title', `gives document name "${id}", already used by ${seen.get(id)}`);
    seen.set(id, where);
    const meta: Record<string, unknown> = { source: ref.source, published_at: ref.published_at };
    for (const k of ['url', 'author', 'category']) if (typeof rec[k] === 'string') meta[k] = rec[k];
    return { id, title: ref.title, text: r.str(rec, 'body', where, { allowEmpty: true }), meta };
  });
}
