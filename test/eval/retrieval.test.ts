/**
 * Retrieval recall from a RetrievalLog: first-search R@k, every-search R@all
 * and doc found, answer visible, page level, exclusions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Question } from '../../lib/bench/types';
import type { RetrievalLog } from '../../lib/pipeline/types';
import { aggregateScores, answerVisible, goldUnits, retrievalScores } from '../../lib/eval/retrieval';

function q(over: Partial<Question>): Question {
  return {
    id: 'q',
    benchmark: 'm3docvqa',
    question: '?',
    answer: 'Mask',
    format: 'span',
    goldDocs: ['A', 'B'],
    evidence: [],
    modality: ['text'],
    meta: {},
    ...over,
  };
}
const hit = (docId: string, page?: number) => ({ fragmentId: `${docId}#${page ?? 0}`, docId, page, score: 1 });

test('document level: R@k from the first search only; R@all and doc found over every search', () => {
  const log: RetrievalLog = {
    // Ranks: C, A, A(again), D, E, F, G, H, X
    firstSearch: [hit('C'), hit('A'), hit('A'), hit('D'), hit('E'), hit('F'), hit('G'), hit('H'), hit('X')],
    searches: [
      { query: 'first', by: 'locator', hits: [hit('C'), hit('A')] },
      { query: 'bridge q', by: 'bridge', hits: [hit('B')] },
    ],
    poolText: 'Material [1]: the film MASK (1985)...',
    poolTrimmed: true,
  };
  const s = retrievalScores(q({}), log)!;
  assert.equal(s['R@1'], 0);
  assert.equal(s['R@3'], 0.5);
  assert.equal(s['R@8'], 0.5);
  assert.equal(s['allFound@8'], 0);
  assert.equal(s['R@all'], 1); // B came from the bridge search
  assert.equal(s.docFound, 1);
  assert.equal(s.answerVisible, 1); // case-insensitive
  assert.equal(s.poolTrimmed, 1);
  // k over distinct documents: C, A, D -> A within the first 2 documents.
  assert.equal(retrievalScores(q({}), log, { ks: [2], kOver: 'units' })!['R@2'], 0.5);
  assert.equal(retrievalScores(q({ goldDocs: ['D'] }), log, { ks: [3] })!['R@3'], 0);
  assert.equal(retrievalScores(q({ goldDocs: ['D'] }), log, { ks: [3], kOver: 'units' })!['R@3'], 1);
  const dual = retrievalScores(q({}), log, { ks: [2, 5] })!;
  assert.deepEqual(
    Object.keys(dual).filter((k) => k.startsWith('R@')),
    ['R@2', 'R@5', 'R@all'],
  );
  // A question without gold documents is excluded.
  assert.equal(retrievalScores(q({ goldDocs: [] }), log), null);
  // Doc not found anywhere.
  const s2 = retrievalScores(q({ goldDocs: ['A', 'Z'] }), log)!;
  assert.equal(s2['R@all'], 0.5);
  assert.equal(s2.docFound, 0);
});

test('page level (MMLongBench-Doc): units are pages of the question document', () => {
  const mm = q({ benchmark: 'mmlongbench-doc', doc: 'report', goldDocs: ['report'], goldPages: [5, 7], answer: '18.29%' });
  assert.deepEqual(goldUnits(mm, 'page'), ['report#p5', 'report#p7']);
  const log: RetrievalLog = { firstSearch: [hit('report', 7), hit('report', 2), hit('report', 5)], searches: [], poolText: 'share was 18.29 %' };
  const s = retrievalScores(mm, log)!;
  assert.equal(s['R@1'], 0.5);
  assert.equal(s['allFound@1'], 0);
  assert.equal(s['R@3'], 1);
  assert.equal(s['allFound@3'], 1);
  assert.equal(s.answerVisible, 0); // "18.29%" does not appear as written
  // The document level variant on request.
  assert.equal(retrievalScores(mm, log, { level: 'document' })!['R@1'], 1);
  // Unanswerable without pages: excluded.
  assert.equal(
    retrievalScores(q({ benchmark: 'mmlongbench-doc', doc: 'report', goldDocs: [], goldPages: [], format: 'unanswerable', answer: 'Not answerable' }), log),
    null,
  );
});

test('both levels (own data over PDFs): page keys prefixed beside the document ones, only on request and with gold pages', () => {
  const own = q({ benchmark: 'own', goldDocs: ['report'], goldPages: [5], answer: 'x' });
  const log: RetrievalLog = { firstSearch: [hit('report', 2), hit('other', 1), hit('report', 5)], searches: [], poolText: '' };
  const s = retrievalScores(own, log, { level: 'document', alsoPages: true })!;
  assert.equal(s['R@1'], 1, 'the document is first');
  assert.equal(s['page:R@1'], 0, 'its gold page is not');
  assert.equal(s['page:R@3'], 1);
  assert.equal(s['page:R@all'], 1);
  assert.equal(s['page:answerVisible'], undefined, 'answer visibility is not a page-level key');
  assert.deepEqual(
    Object.keys(retrievalScores(own, log, { level: 'document' })!).filter((k) => k.startsWith('page:')),
    [],
    'not without alsoPages',
  );
  const noPages = retrievalScores(q({ benchmark: 'own', goldDocs: ['report'] }), log, { level: 'document', alsoPages: true })!;
  assert.deepEqual(
    Object.keys(noPages).filter((k) => k.startsWith('page:')),
    [],
    'not for a question without gold pages',
  );
});

test('answer visible: lists need every element, aliases count, unanswerable has none', () => {
  assert.equal(answerVisible(q({ answer: ['Mask', 'Junie Moon'] }), 'mask ... junie   moon'), 1);
  assert.equal(answerVisible(q({ answer: ['Mask', 'Junie Moon'] }), 'mask only'), 0);
  assert.equal(answerVisible(q({ answer: 'G. Stanley Hall', altAnswers: ['Stanley Hall'] }), 'stanley hall was'), 1);
  assert.equal(answerVisible(q({ answer: null }), 'x'), undefined);
  assert.equal(answerVisible(q({ format: 'unanswerable', answer: 'Insufficient information.' }), 'x'), undefined);
  assert.equal(answerVisible(q({}), undefined), undefined);
});

test('aggregateScores: means per key over the questions that have it', () => {
  const agg = aggregateScores([{ 'R@1': 1, answerVisible: 1 }, null, { 'R@1': 0 }]);
  assert.equal(agg.n, 2);
  assert.equal(agg.mean['R@1'], 0.5);
  assert.equal(agg.mean.answerVisible, 1);
  assert.equal(agg.count.answerVisible, 1);
});
