/**
 * list_media's result in the released runner's layout (blockFormat = runner; its kfbench/materials.py
 * writes it as text): per book, a head line with the book's figure and table counts (the page and cut
 * notes after it), one line per figure or table (page tag, kind word, fragment id, description), and
 * one closing hint. Every word comes from the pack (list-media-*), the layout is the runner's.
 *
 * The harness's list_media keeps its own semantics (it may list several books when none is named);
 * each book gets its own head, as the runner writes one book's.
 */
import type { KbMedia } from '../../pipeline/knowledge-base';
import { KB_LIMITS } from '../../pipeline/knowledge-base';
import { fillPrompt, hasPrompt, loadPrompt } from '../../util/prompts';
import { clip, type KfToolContext } from './context';

/** The description cut of one entry (the harness listing's caption cut). */
const DESC_CHARS = 160;

function itemLine(ctx: KfToolContext, m: KbMedia): string {
  // The loader trims a template's trailing space, so the page tag's separating space is written here (layout).
  const page = m.page !== undefined ? `${fillPrompt('list-media-item-page', { page: String(m.page) })} ` : '';
  const desc = clip(m.caption ?? ctx.kb.fragment(m.fragmentId)?.text, DESC_CHARS);
  return fillPrompt('list-media-item', {
    page,
    boundary: '',
    kind: loadPrompt(m.kind === 'image' ? 'list-media-image' : 'list-media-table'),
    id: m.fragmentId,
    desc: desc || (hasPrompt('block-no-caption') ? loadPrompt('block-no-caption') : ''),
  });
}

/** `book`: what the knowledge base's media filter takes (a document id or title); `docId`: a listed entry's document, for its title. */
function bookHead(ctx: KfToolContext, book: string, docId: string | undefined, page: number | undefined, shown: number | undefined): string {
  const all = ctx.kb.media({ doc: book });
  const head = fillPrompt('list-media-head', {
    book: (docId && ctx.kb.title(docId)) || book,
    images: String(all.filter((m) => m.kind === 'image').length),
    tables: String(all.filter((m) => m.kind !== 'image').length),
  });
  const pageNote = page !== undefined ? fillPrompt('list-media-page', { page: String(page) }) : '';
  const cut = shown !== undefined ? fillPrompt('list-media-truncated', { shown: String(shown) }) : '';
  return `${head}${pageNote}${cut}${loadPrompt('list-media-head-end')}`;
}

/** A list_media result in the runner layout; `doc` is the book asked for (none: every book listed). */
export function runnerMediaListing(ctx: KfToolContext, media: readonly KbMedia[], q: { doc?: string; page?: number }): string {
  // The book asked for (as the knowledge base resolved it) is one group; with none, one group per document listed.
  const groups = q.doc
    ? [{ book: q.doc, docId: media[0]?.docId, items: media }]
    : [...new Set(media.map((m) => m.docId))].map((d) => ({ book: d, docId: d, items: media.filter((m) => m.docId === d) }));
  if (!groups.length) return fillPrompt('list-media-missing', { error: 'no_match' });
  // The knowledge base stops at KB_LIMITS.mediaList entries: a full listing may have been cut there.
  const shown = media.length >= KB_LIMITS.mediaList ? media.length : undefined;
  const books = groups.map((g) => [bookHead(ctx, g.book, g.docId, q.page, shown), ...g.items.map((m) => itemLine(ctx, m))].join('\n'));
  return `${books.join('\n\n')}\n${loadPrompt('list-media-footer')}`;
}
