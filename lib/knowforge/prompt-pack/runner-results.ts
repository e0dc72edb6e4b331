/**
 * The layouts of the released runner's reading-tool results beyond the search listing, read from the
 * user's checkout of kfbench/materials.py at import time (never part of this project). read_media
 * (its materializer writes one line per asset looked at, a line per error, a line naming the ids
 * over the per-call cap, a header before them, and a note when nothing came back) and list_media (a
 * book's head with its counts, the page and cut notes, one line per figure or table, the closing
 * hint, the not-found note), list_tables (header, a line per table, the column separator, the
 * empty note), query_table and get_table (header, a head per table, row marks, cells and their
 * separator, the rows-left note, the no-match note), find_figure (a head naming label and book, the
 * caption lines, the line before the page's figures, one line per figure or table, the note with its
 * hint when the label is nowhere in the text), media_context (head, description, caption-like lines, page
 * text, the page's other figures, closing hint, error note), list_books (head, keyword and cut notes, a line
 * per book, the empty and no-match notes) and book_toc (head, indent and mark per heading, the hint of
 * its not-found error). Each becomes a template of the pack
 * (lib/knowforge/tools/read-listing.ts, media-listing.ts, table-listing.ts, figure-listing.ts fill them).
 *
 * As with the block formats, an f-string is recognised by the Python expressions in its fields, a
 * literal by the code around it, never by its wording; a template not found fails the import naming it.
 */
import { LIT, layoutTemplates, type FStringRule, type LiteralRule } from './runner-blocks';

export const RESULT_FSTRING_RULES: FStringRule[] = [
  {
    template: 'read-media-answer',
    role: 'read_media result: the line of one asset looked at (its media name, kind, the vision answer)',
    match: (e) => e.includes('tag') && e.some((x) => /\.get\(["']answer["']\)/.test(x)),
    fields: [
      [/^tag$/, 'name'],
      [/\.get\(["']kind["']\)/, 'kind'],
      [/\.get\(["']answer["']\)/, 'answer'],
    ],
  },
  {
    template: 'read-media-error',
    role: 'read_media result: the line of an id that could not be looked at',
    match: (e) => e.length === 2 && /fragment_id/.test(e[0]) && /\[["']error["']\]/.test(e[1]),
    fields: [
      [/fragment_id/, 'id'],
      [/\[["']error["']\]/, 'error'],
    ],
  },
  {
    template: 'read-media-skipped',
    role: 'read_media result: the ids over the per-call cap, not looked at',
    match: (e) => e.length === 1 && /\[["']skipped["']\]/.test(e[0]),
    fields: [[/\[["']skipped["']\]/, 'ids']],
  },
  {
    template: 'list-media-head',
    role: "list_media result: head of a book's listing (book, its figure and table counts)",
    match: (e) => e.length === 3 && /\[["']book["']\]/.test(e[0]) && e.some((x) => /total_images/.test(x)) && e.some((x) => /total_tables/.test(x)),
    fields: [
      [/\[["']book["']\]/, 'book'],
      [/total_images/, 'images'],
      [/total_tables/, 'tables'],
    ],
  },
  {
    template: 'list-media-page',
    role: 'list_media result: note that only one page is listed',
    match: (e) => e.length === 1 && /data\[["']page["']\]/.test(e[0]),
    fields: [[/page/, 'page']],
  },
  {
    template: 'list-media-truncated',
    role: 'list_media result: note that the listing was cut at the entries shown',
    match: (e) => e.length === 1 && /\[["']shown["']\]/.test(e[0]),
    fields: [[/shown/, 'shown']],
  },
  {
    template: 'list-media-item',
    role: 'list_media result: one figure or table (page tag, boundary mark, kind, fragment id, description)',
    match: (e) => e.includes('pg') && e.includes('bd') && e.includes('k'),
    fields: [
      [/^pg$/, 'page'],
      [/^bd$/, 'boundary'],
      [/^k$/, 'kind'],
      [/fragment_id/, 'id'],
      [/desc/, 'desc'],
    ],
  },
  {
    template: 'list-media-item-page',
    role: "list_media result: an entry's page tag",
    match: (e) => e.length === 1 && /^it\[["']page["']\]$/.test(e[0]),
    fields: [[/page/, 'page']],
  },
  {
    // The first f-string of the module that writes an error code alone is list_media's own.
    template: 'list-media-missing',
    role: 'list_media result when the book asked for is not found',
    match: (e) => e.length === 1 && e[0] === 'err',
    fields: [[/^err$/, 'error']],
  },
  {
    template: 'list-tables-line',
    role: 'list_tables result: one table (name, id, row count, columns)',
    match: (e) => e.some((x) => /\.get\(["']table_id["']\)/.test(x)) && e.some((x) => /row_count/.test(x)) && e.some((x) => /columns/.test(x)),
    fields: [
      [/\.get\(["']name["']\)/, 'name'],
      [/table_id/, 'id'],
      [/row_count/, 'rows'],
      [/columns/, 'columns'],
    ],
  },
  {
    template: 'query-table-group',
    role: "query_table result: head of one table's matching rows (table name, item, rows matched, rows left out)",
    match: (e) => e.includes('item') && e.includes('more') && e.some((x) => /\.get\(["']matched["']\)/.test(x)),
    fields: [
      [/\.get\(["']name["']\)/, 'name'],
      [/^item$/, 'item'],
      [/matched/, 'matched'],
      [/^more$/, 'more'],
    ],
  },
  {
    template: 'get-table-head',
    role: 'get_table result: head of a whole table (name, row count, rows left out)',
    match: (e) => e.length === 3 && e.includes('more') && e.some((x) => /^data\.get\(["']row_count["']\)$/.test(x)),
    fields: [
      [/\.get\(["']name["']\)/, 'name'],
      [/row_count/, 'rows'],
      [/^more$/, 'more'],
    ],
  },
  {
    template: 'table-rows-left',
    role: 'get_table result: note of the rows left out',
    match: (e) => e.length === 1 && /row_count.*-\s*len\(rows\)/.test(e[0]),
    fields: [[/row_count/, 'rest']],
  },
  {
    template: 'table-cell',
    role: 'query_table / get_table result: one cell of a row (column and value)',
    match: (e) => e.length === 2 && e[0] === 'k' && e[1] === 'v',
    fields: [
      [/^k$/, 'column'],
      [/^v$/, 'value'],
    ],
  },
  {
    template: 'find-figure-head',
    role: 'find_figure result: head naming the label and the book it was looked for in',
    match: (e) => e.length === 2 && e[0] === 'lab' && /^data\[["']book["']\]$/.test(e[1]),
    fields: [
      [/^lab$/, 'label'],
      [/book/, 'book'],
    ],
  },
  {
    template: 'find-figure-none',
    role: "find_figure result when the label is nowhere in the book's text (book, label)",
    match: (e) => e.length === 2 && /^data\[["']book["']\]$/.test(e[0]) && e[1] === 'lab',
    fields: [
      [/book/, 'book'],
      [/^lab$/, 'label'],
    ],
  },
  {
    template: 'find-figure-caption',
    role: 'find_figure result: one caption line holding the label (page, the line)',
    match: (e) => e.length === 2 && /^c\[["']page["']\]$/.test(e[0]) && /^c\[["']line["']\]$/.test(e[1]),
    fields: [
      [/page/, 'page'],
      [/line/, 'line'],
    ],
  },
  {
    template: 'find-figure-media-intro',
    role: 'find_figure result: line before the figures and tables of the pages found (label)',
    match: (e) => e.length === 1 && e[0] === 'lab',
    fields: [[/^lab$/, 'label']],
  },
  {
    template: 'find-figure-media',
    role: 'find_figure result: one figure or table of a page found (page, kind word, fragment id, description)',
    match: (e) => e.length === 4 && /^it\[["']page["']\]$/.test(e[0]) && e[1] === 'k' && /fragment_id/.test(e[2]) && /desc/.test(e[3]),
    fields: [
      [/page/, 'page'],
      [/^k$/, 'kind'],
      [/fragment_id/, 'id'],
      [/desc/, 'desc'],
    ],
  },
  {
    // An error code alone is written by list_media, find_figure, then media_context, in that order.
    template: 'media-context-error',
    role: 'media_context result when the id is not a figure or table',
    match: (e) => e.length === 1 && e[0] === 'err',
    nth: 2,
    fields: [[/^err$/, 'error']],
  },
  {
    template: 'media-context-head',
    role: 'media_context result: head (kind word, fragment id, page)',
    match: (e) => e.length === 3 && e[0] === 'k' && /^data\[["']fragment_id["']\]$/.test(e[1]) && /^data\[["']page["']\]$/.test(e[2]),
    fields: [
      [/^k$/, 'kind'],
      [/fragment_id/, 'id'],
      [/page/, 'page'],
    ],
  },
  {
    template: 'media-context-desc',
    role: "media_context result: the figure's whole description (kind word, description)",
    match: (e) => e.length === 2 && e[0] === 'k' && /^data\[["']desc["']\]/.test(e[1]),
    fields: [
      [/^k$/, 'kind'],
      [/desc/, 'desc'],
    ],
  },
  {
    template: 'media-context-text',
    role: 'media_context result: the body text of the same page',
    match: (e) => e.length === 1 && /^data\[["']page_text["']\]$/.test(e[0]),
    fields: [[/page_text/, 'text']],
  },
  {
    template: 'media-context-sibling',
    role: 'media_context result: one other figure or table of the page (kind word, fragment id, description)',
    match: (e) => e.length === 3 && /\bs\[["']kind["']\]/.test(e[0]) && /^s\[["']fragment_id["']\]$/.test(e[1]) && /^s\[["']desc["']\]$/.test(e[2]),
    fields: [
      [/kind/, 'kind'],
      [/fragment_id/, 'id'],
      [/desc/, 'desc'],
    ],
  },
  {
    template: 'list-books-none',
    role: 'list_books result when no title holds the keyword (total, keyword)',
    match: (e) => e.length === 2 && e[0] === 'total' && /keyword/.test(e[1]),
    fields: [
      [/^total$/, 'total'],
      [/keyword/, 'keyword'],
    ],
  },
  {
    template: 'list-books-head',
    role: 'list_books result: head with the number of books',
    match: (e) => e.length === 1 && e[0] === 'total',
    fields: [[/^total$/, 'total']],
  },
  {
    template: 'list-books-keyword',
    role: 'list_books result: head note of the keyword and the books it matched',
    match: (e) => e.length === 2 && /^data\[["']keyword["']\]$/.test(e[0]) && /matched/.test(e[1]),
    fields: [
      [/keyword/, 'keyword'],
      [/matched/, 'matched'],
    ],
  },
  {
    template: 'list-books-truncated',
    role: 'list_books result: head note that only the first books are listed',
    match: (e) => e.length === 1 && /^len\(books\)$/.test(e[0]),
    fields: [[/books/, 'shown']],
  },
  {
    template: 'list-books-line',
    role: 'list_books result: one book (its name)',
    match: (e) => e.length === 1 && /^b\[["']name["']\]$/.test(e[0]),
    fields: [[/name/, 'name']],
  },
  {
    template: 'book-toc-head',
    role: 'book_toc result: head (book, number of headings)',
    match: (e) => e.length === 2 && /book/.test(e[0]) && /^len\(secs\)$/.test(e[1]),
    fields: [
      [/book/, 'book'],
      [/secs/, 'count'],
    ],
  },
];

const KIND_IS_IMAGE = `\\bk\\s*=\\s*`;

export const RESULT_LITERAL_RULES: LiteralRule[] = [
  {
    template: 'list-media-image',
    role: 'list_media result: the kind word of a figure',
    re: new RegExp(`${KIND_IS_IMAGE}(${LIT})if\\s+it\\[["']kind["']\\]\\s*==\\s*["']image["']`),
  },
  {
    template: 'list-media-table',
    role: 'list_media result: the kind word of a table',
    re: new RegExp(`${KIND_IS_IMAGE}${LIT}if\\s+it\\[["']kind["']\\]\\s*==\\s*["']image["']\\s*else\\s+(${LIT})`),
  },
  {
    template: 'list-media-head-end',
    role: "list_media result: the mark closing a book's head line",
    re: new RegExp(`\\+\\s*(${LIT})lines\\s*=\\s*\\[head\\]`),
  },
  {
    template: 'list-tables-empty',
    role: 'list_tables result when the knowledge base has no table',
    re: new RegExp(`if\\s+not\\s+tables:\\s*\\n\\s*return\\s+(${LIT})`),
    trimEnd: true,
  },
  {
    template: 'list-tables-header',
    role: 'list_tables result: header before the table lines',
    re: new RegExp(`if\\s+not\\s+tables:\\s*\\n\\s*return\\s+${LIT}return\\s+(${LIT})\\+\\s*"\\\\n"\\.join\\(`),
    trimEnd: true,
  },
  {
    // The separator between column names is written inside the line's field expression.
    template: 'list-tables-column-sep',
    role: 'list_tables result: separator between column names',
    re: /\{\s*('[^'\\\n]*'|"[^"\\\n]*")\.join\(\w+\.get\(["']columns["']\)/,
  },
  {
    template: 'query-table-header',
    role: 'query_table result: header before the matching rows',
    re: new RegExp(`\\(\\s*(${LIT})\\+\\s*"\\\\n"\\.join\\(tbl_lines\\)`),
    trimEnd: true,
  },
  {
    template: 'query-table-empty',
    role: 'query_table result when no row matches',
    re: new RegExp(`return\\s+block\\s+or\\s+(${LIT})`),
    trimEnd: true,
  },
  {
    template: 'query-table-row',
    role: 'query_table result: the mark before a matching row',
    re: new RegExp(`tbl_lines\\.append\\(\\s*(${LIT})\\+\\s*${LIT}\\.join\\(`),
  },
  {
    template: 'get-table-row',
    role: 'get_table result: the mark before a row',
    re: new RegExp(`(?<!\\w)lines\\.append\\(\\s*(${LIT})\\+\\s*${LIT}\\.join\\(f"\\{k\\}`),
  },
  {
    template: 'table-cell-sep',
    role: 'query_table / get_table result: separator between the cells of a row',
    re: new RegExp(`\\+\\s*(${LIT})\\.join\\(f"\\{k\\}`),
  },
  {
    // The note goes on in a second, field-less f-string right after the one naming the book and label.
    template: 'find-figure-none-hint',
    role: 'find_figure result when the label is nowhere in the text: what to do instead',
    re: /\{lab\}[^"\n]*"\s*\n\s*f("(?:[^"\\\n{}]|\\.)*")\s*\)/,
    trimEnd: true,
  },
  {
    template: 'media-context-captions',
    role: 'media_context result: head of the caption-like lines of the same page',
    re: new RegExp(`lines\\.append\\(\\s*(${LIT})\\+\\s*${LIT}\\.join\\(data\\[["']captions["']\\]\\)`),
  },
  {
    template: 'media-context-siblings',
    role: 'media_context result: head of the other figures and tables of the page',
    re: new RegExp(`lines\\.append\\(\\s*(${LIT})\\+\\s*${LIT}\\.join\\(f"[^\\n]*\\bs\\[["']fragment_id["']\\]`),
  },
  {
    template: 'media-context-sibling-sep',
    role: 'media_context result: separator between the other figures of the page',
    re: new RegExp(`\\+\\s*(${LIT})\\.join\\(f"[^\\n]*\\bs\\[["']fragment_id["']\\]`),
  },
  {
    template: 'media-context-footer',
    role: 'media_context result: the closing hint (read values with read_media)',
    re: new RegExp(
      `lines\\.append\\(\\s*(${LIT})\\)\\s*\\n\\s*return\\s+builder\\.add_plain\\(\\s*"\\\\n"\\.join\\(lines\\),\\s*\\[data\\.get\\(["']fragment_id["']\\)\\]`,
    ),
    trimEnd: true,
  },
  {
    template: 'list-books-empty',
    role: 'list_books result when the knowledge base holds no book',
    re: new RegExp(`if\\s+not\\s+total:\\s*\\n\\s*return\\s+(${LIT})`),
    trimEnd: true,
  },
  {
    template: 'list-books-head-end',
    role: 'list_books result: the mark closing the head line',
    re: new RegExp(`lines\\s*=\\s*\\[head\\s*\\+\\s*(${LIT})\\]`),
  },
  {
    template: 'book-toc-indent',
    role: 'book_toc result: the indent written once per level below the first',
    re: new RegExp(`(${LIT})\\*\\s*max\\(0,\\s*int\\(s\\.get\\(["']level["']\\)`),
  },
  {
    template: 'book-toc-mark',
    role: 'book_toc result: the mark before a heading title',
    re: new RegExp(`-\\s*1\\)\\s*\\+\\s*(${LIT})\\+\\s*str\\(s\\.get\\(["']title["']\\)`),
  },
  {
    template: 'book-toc-missing-hint',
    role: 'book_toc result when no book matches: the hint of its error object',
    re: new RegExp(`["']hint["']\\s*:\\s*(${LIT})\\}`),
  },
  {
    template: 'list-media-footer',
    role: 'list_media result: the closing hint (how to look at one, how to count)',
    re: new RegExp(
      `lines\\.append\\(\\s*(${LIT})\\)\\s*\\n\\s*return\\s+builder\\.add_plain\\(\\s*"\\\\n"\\.join\\(lines\\),\\s*\\[\\w+\\.get\\(["']fragment_id["']\\)\\s+for\\s+\\w+\\s+in\\s+\\(?data(?:\\.get\\(|\\[)["']items["']`,
    ),
    trimEnd: true,
  },
  {
    template: 'read-media-header',
    role: 'read_media result: header before the asset lines',
    re: new RegExp(`block\\s*=\\s*\\(\\s*(${LIT})\\+\\s*"\\\\n"\\.join\\(lines\\)\\s*\\)`),
    trimEnd: true,
  },
  {
    // The literal returned when no line was written, right after the skipped-ids line.
    template: 'read-media-empty',
    role: 'read_media result when nothing came back',
    re: new RegExp(`skipped[^\\n]*\\n\\s*if\\s+not\\s+lines:\\s*\\n\\s*return\\s+(${LIT})`),
    trimEnd: true,
  },
];

/** The result templates of a materials.py: template -> {text, role, from}; fails naming what is missing. */
export function runnerResultTemplates(source: string): Map<string, { text: string; role: string; from: string }> {
  return layoutTemplates(source, {
    fStrings: RESULT_FSTRING_RULES,
    literals: RESULT_LITERAL_RULES,
    what: 'the tool-result formats',
    hint: 'check out a release of knowforge-bench whose materializers write them',
  });
}
