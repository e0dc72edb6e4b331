/**
 * list_books' and book_toc's results in the released runner's layout (blockFormat = runner; its
 * kfbench/materials.py writes them as text). list_books: a head with the number of books (the keyword
 * and cut notes after it), one line per book; the empty and no-match notes. book_toc: a head (book,
 * number of headings), one line per heading indented by its level; a not-found error object carrying
 * the pack's hint. Every word comes from the pack (list-books-*, book-toc-*), the layout is the runner's.
 *
 * What the harness's knowledge base does not hold is left out rather than made up: it has no one-line
 * summary of a book (the runner's text after the name), and its listings stop at KB_LIMITS.listBooks
 * books and KB_LIMITS.tocHeadings headings, so a count it reports is at most that cap and the cut note
 * says how many are shown.
 */
import { KB_LIMITS, type KbDocument, type KbHeading } from '../../pipeline/knowledge-base';
import { fillPrompt, loadPrompt, loadPromptSpaced } from '../../util/prompts';
import type { KfToolContext } from './context';

/** A list_books result in the runner layout; `docs` are the books the keyword (if any) selected. */
export function runnerBookListing(ctx: KfToolContext, keyword: string | undefined, docs: readonly KbDocument[]): string {
  const total = ctx.kb.documents().length;
  if (!total) return loadPrompt('list-books-empty');
  if (!docs.length) return fillPrompt('list-books-none', { total: String(total), keyword: keyword ?? '' });
  const kw = keyword ? fillPrompt('list-books-keyword', { keyword, matched: String(docs.length) }) : '';
  const cut = docs.length >= KB_LIMITS.listBooks ? fillPrompt('list-books-truncated', { shown: String(docs.length) }) : '';
  const head = `${fillPrompt('list-books-head', { total: String(total) })}${kw}${cut}${loadPrompt('list-books-head-end')}`;
  return [head, ...docs.map((d) => fillPrompt('list-books-line', { name: d.title || d.id }))].join('\n');
}

/** A book_toc result in the runner layout: a heading's level is the depth of its section path. */
export function runnerBookToc(book: string, headings: readonly KbHeading[]): string {
  const indent = loadPromptSpaced('book-toc-indent');
  const mark = loadPromptSpaced('book-toc-mark');
  const lines = headings.map((h) => `${indent.repeat(Math.max(0, h.path.length - 1))}${mark}${h.path.at(-1) ?? ''}`);
  return [fillPrompt('book-toc-head', { book, count: String(headings.length) }), ...lines].join('\n');
}

/** book_toc's not-found result as the runner writes it: Python's json.dumps layout of the error object. */
export function runnerBookTocMissing(code: string): string {
  const q = (v: string) => JSON.stringify(v);
  return `{"error": {"code": ${q(code)}, "recoverable": true, "hint": ${q(loadPrompt('book-toc-missing-hint'))}}}`;
}
