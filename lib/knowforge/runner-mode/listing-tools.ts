/**
 * Runner mode's listing tools written as the released runner's materializers write them: the
 * book list, a book's headings, a book's figures and tables, where a numbered figure is, a figure's
 * page context. Each text is the checkout's own (texts.ts: picked by its place in the materializer's
 * code, checked by its field count); the logic that fills it is this project's.
 */
import { fieldsOf, type LitPart } from './python-literals';
import { pyJsonDumps, pyReprStr, pyStr } from './python-values';
import { fillSeq, fnRuns, nthRun, type RunnerSource } from './texts';
import type { Json } from './kb-api';
import type { RunnerMaterials } from './materials';

export const plain = (p: LitPart[]) => p.map((x) => (typeof x === 'string' ? x : '')).join('');
export const squash = (s: unknown) =>
  String(s ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');
const cps = (s: string, n: number) => [...s].slice(0, n).join('');
/** The literal after `or` in a field `x or '...'` (the text Python writes when x is empty). */
export function orDefault(parts: LitPart[], i: number): string {
  const m = / or (['"])(.*)\1\s*$/s.exec(fieldsOf(parts)[i] ?? '');
  return m ? m[2] : '';
}
/** Python's `x or default` on a JSON value, then str(). */
const or = (v: unknown, d: string) => (v === undefined || v === null || v === '' || v === 0 || v === false ? d : pyStr(v));
const s = pyStr;

/** The three caps of the materializers module (its books, one-line and headings limits). */
export function listCaps(m: RunnerSource): { books: number; oneLine: number; toc: number } {
  const x = /^BOOKS_CAP,\s*BOOK_ONELINE_CLIP,\s*TOC_CAP\s*=\s*(\d+),\s*(\d+),\s*(\d+)/m.exec(m.src);
  if (!x) throw new Error(`${m.file}: the listing caps were not found`);
  return { books: Number(x[1]), oneLine: Number(x[2]), toc: Number(x[3]) };
}

export function listBooksListing(m: RunnerSource, b: RunnerMaterials, data: Json): string {
  const r = fnRuns(m, 'list_books_mat');
  const at = (i: number, f: number) => nthRun(m, r, i, f, `list_books_mat text ${i}`);
  const total = Number(data.total || 0);
  const books = (data.books ?? []) as Json[];
  if (!total) return plain(at(0, 0));
  if (!books.length) return fillSeq(at(1, 2), [String(total), s(data.keyword)]);
  let head = fillSeq(at(2, 1), [String(total)]);
  if (data.keyword) head += fillSeq(at(3, 2), [s(data.keyword), s(data.matched)]);
  if (data.truncated) head += fillSeq(at(4, 1), [String(books.length)]);
  const lines = [head + plain(at(5, 0))];
  for (const x of books) {
    const one = cps(squash(x.one_line), listCaps(m).oneLine);
    lines.push(fillSeq(at(7, 1), [s(x.name)]) + (one ? fillSeq(at(8, 1), [one]) : ''));
  }
  return b.addPlain(lines.join('\n'));
}

export function bookTocListing(m: RunnerSource, b: RunnerMaterials, data: Json): string {
  const r = fnRuns(m, 'book_toc_mat');
  const at = (i: number, f: number) => nthRun(m, r, i, f, `book_toc_mat text ${i}`);
  if (data.error) return pyJsonDumps({ error: { code: data.error, recoverable: true, hint: plain(at(4, 0)) } });
  if (data.candidates?.length) return fillSeq(at(5, 1), [s(data.matched)]) + (data.candidates as unknown[]).map((n) => fillSeq(at(7, 1), [s(n)])).join('\n');
  const secs = ((data.toc ?? {}).sections ?? []) as Json[];
  const toc = listCaps(m).toc;
  const head = fnRuns(m, 'book_toc_mat', true).find((x) => {
    const f = fieldsOf(x);
    return f.length === 2 && f[1] === 'len(secs)';
  });
  if (!head) throw new Error(`${m.file}: the headings header was not found`);
  const lines = [fillSeq(head, [s(data.book), String(secs.length)])];
  for (const x of secs.slice(0, toc))
    lines.push(plain(at(8, 0)).repeat(Math.max(0, Math.trunc(Number(x.level || 1)) - 1)) + plain(at(9, 0)) + s(x.title ?? ''));
  if (secs.length > toc) lines.push(fillSeq(at(11, 1), [String(secs.length - toc)]));
  return b.addPlain(lines.join('\n'), data.book ? [`doc:${s(data.book)}`] : []);
}

/** The "pass a book" answers list_media and find_figure share (indexes of their runs). */
function bookRequired(r: (i: number, f: number) => LitPart[], data: Json, first: number): string {
  if (data.candidates?.length) return plain(r(first, 0)) + (data.candidates as unknown[]).map(s).join(plain(r(first + 1, 0))) + plain(r(first + 2, 0));
  return fillSeq(r(first + 3, 1), [s(data.matched)]);
}

const kindWord = (r: (i: number, f: number) => LitPart[], i: number, kind: unknown) => plain(r(kind === 'image' ? i : i + 2, 0));

function mediaHead(at: (i: number, f: number) => LitPart[], data: Json): string {
  const span = data.span as Json | undefined;
  let head: string;
  if (span) {
    const nxt =
      span.mode === 'text_anchor'
        ? fillSeq(at(8, 2), [((span.hit_pages ?? []) as unknown[]).map(s).join(', '), s(span.start)])
        : span.next_title
          ? fillSeq(at(9, 1), [s(span.next_title)])
          : plain(at(10, 0));
    const items = (data.items ?? []) as unknown[];
    head = fillSeq(at(11, 8), [s(data.book), s(span.title), s(span.start), s(span.end), nxt, String(items.length), s(data.total_images), s(data.total_tables)]);
  } else {
    head =
      fillSeq(at(12, 3), [s(data.book), s(data.total_images), s(data.total_tables)]) +
      (data.heading_missed ? fillSeq(at(13, 1), [s(data.heading)]) : '') +
      (data.page !== undefined && data.page !== null && data.page !== '' ? fillSeq(at(15, 1), [s(data.page)]) : '');
  }
  return head + (data.truncated ? fillSeq(at(18, 1), [s(data.shown)]) : '') + plain(at(20, 0));
}

export function listMediaListing(m: RunnerSource, b: RunnerMaterials, data: Json): string {
  const r = fnRuns(m, 'list_media_mat');
  const at = (i: number, f: number) => nthRun(m, r, i, f, `list_media_mat text ${i}`);
  const err = data.error;
  if (err === 'book_required' || err === 'ambiguous') return bookRequired(at, data, 2);
  if (err) return fillSeq(at(6, 1), [s(err)]);
  const lines = [mediaHead(at, data)];
  const item = at(28, 5);
  for (const it of (data.items ?? []) as Json[]) {
    const pg = it.page !== null && it.page !== undefined ? fillSeq(at(24, 1), [s(it.page)]) : '';
    const bd = it.boundary ? plain(at(26, 0)) : '';
    lines.push(fillSeq(item, [pg, bd, kindWord(at, 21, it.kind), s(it.fragment_id), or(it.desc, orDefault(item, 4))]));
  }
  lines.push(plain(at(29, 0)));
  return b.addPlain(
    lines.join('\n'),
    ((data.items ?? []) as Json[]).map((x) => x.fragment_id),
  );
}

export function findFigureListing(m: RunnerSource, b: RunnerMaterials, data: Json): string {
  const r = fnRuns(m, 'find_figure_mat');
  const at = (i: number, f: number) => nthRun(m, r, i, f, `find_figure_mat text ${i}`);
  const err = data.error;
  if (err === 'bad_label') return fillSeq(at(1, 1), [data.label === undefined || data.label === null ? 'None' : pyReprStr(s(data.label))]);
  if (err === 'book_required' || err === 'ambiguous') return bookRequired(at, data, 4);
  if (err) return fillSeq(at(8, 1), [s(err)]);
  const lab = s(data.label);
  if (!data.pages?.length) return b.addPlain(fillSeq(at(9, 2), [s(data.book), lab]));
  const lines: string[] = [];
  const headRun = fnRuns(m, 'find_figure_mat', true).find((x) => {
    const f = fieldsOf(x);
    return f.length === 2 && f[0] === 'lab';
  });
  if (!headRun) throw new Error(`${m.file}: the figure-place header was not found`);
  lines.push(fillSeq(headRun, [lab, s(data.book)]));
  for (const c of (data.captions ?? []) as Json[]) lines.push(fillSeq(at(10, 2), [s(c.page), s(c.line)]));
  if (!data.captions?.length) for (const x of (data.mentions ?? []) as Json[]) lines.push(fillSeq(at(11, 2), [s(x.page), s(x.line)]));
  const media = (data.media ?? []) as Json[];
  if (media.length) {
    lines.push(fillSeq(at(12, 1), [lab]));
    const item = at(16, 4);
    for (const it of media) lines.push(fillSeq(item, [s(it.page), kindWord(at, 13, it.kind), s(it.fragment_id), or(it.desc, orDefault(item, 3))]));
  } else lines.push(fillSeq(at(17, 1), [((data.pages ?? []) as unknown[]).map(s).join(', ')]));
  return b.addPlain(lines.join('\n'), [
    ...media.map((x) => x.fragment_id),
    ...((data.captions ?? []) as unknown[]).filter((c) => c && typeof c === 'object').map((c) => (c as Json).fragment_id),
  ]);
}

export function mediaContextListing(m: RunnerSource, b: RunnerMaterials, data: Json): string {
  const r = fnRuns(m, 'media_context_mat');
  const at = (i: number, f: number) => nthRun(m, r, i, f, `media_context_mat text ${i}`);
  if (data.error) return fillSeq(at(0, 1), [s(data.error)]);
  const k = kindWord(at, 1, data.kind);
  const desc = at(5, 2);
  const lines = [fillSeq(at(4, 3), [k, s(data.fragment_id), s(data.page)]), fillSeq(desc, [k, or(data.desc, orDefault(desc, 1))])];
  if (data.captions?.length) lines.push(plain(at(6, 0)) + (data.captions as unknown[]).map(s).join(plain(at(7, 0))));
  if (data.page_text) lines.push(fillSeq(at(8, 1), [s(data.page_text)]));
  const sib = (data.siblings ?? []) as Json[];
  if (sib.length) {
    const one = at(11, 3);
    const word = (kind: unknown) => {
      const x = /^(['"])(.*?)\1 if .* else (['"])(.*?)\3$/s.exec(fieldsOf(one)[0]);
      if (!x) throw new Error(`${m.file}: the sibling kind words were not found`);
      return kind === 'image' ? x[2] : x[4];
    };
    lines.push(plain(at(9, 0)) + sib.map((x) => fillSeq(one, [word(x.kind), s(x.fragment_id), s(x.desc)])).join(plain(at(10, 0))));
  }
  lines.push(plain(at(12, 0)));
  return b.addPlain(lines.join('\n'), [data.fragment_id, ...sib.map((x) => x.fragment_id)]);
}
