/**
 * find_figure's result in the released runner's layout (blockFormat = runner; its kfbench/materials.py
 * writes it as text): per book, a head naming the label and the book, one caption line per figure found
 * that has a caption, the line before the figures, then one line per figure or table (page, kind word,
 * fragment id, description). When nothing carries the label, the runner's note that the book never
 * prints it, with its hint. Every word comes from the pack (find-figure-*), the layout is the runner's.
 *
 * The harness finds figures by their stored label, not by scanning the page text as the runner does, so
 * the runner's "mentioned in the text" lines and its "no separate figure on that page" note never apply.
 */
import type { KbMedia } from '../../pipeline/knowledge-base';
import { fillPrompt, hasPrompt, loadPrompt } from '../../util/prompts';
import { clip, type KfToolContext } from './context';

/** The description cut of one entry (list_media's cut). */
const DESC_CHARS = 160;

/** The runner writes a page number in every line; the harness may not know one. */
const pageOf = (m: KbMedia) => (m.page !== undefined ? String(m.page) : '?');

function mediaLine(ctx: KfToolContext, m: KbMedia): string {
  const desc = clip(m.caption ?? ctx.kb.fragment(m.fragmentId)?.text, DESC_CHARS);
  return fillPrompt('find-figure-media', {
    page: pageOf(m),
    kind: loadPrompt(m.kind === 'image' ? 'list-media-image' : 'list-media-table'),
    id: m.fragmentId,
    desc: desc || (hasPrompt('block-no-caption') ? loadPrompt('block-no-caption') : ''),
  });
}

function bookBlock(ctx: KfToolContext, label: string, book: string, items: readonly KbMedia[]): string {
  const captions = items.filter((m) => m.caption).map((m) => fillPrompt('find-figure-caption', { page: pageOf(m), line: clip(m.caption, DESC_CHARS) }));
  const media = [fillPrompt('find-figure-media-intro', { label }), ...items.map((m) => mediaLine(ctx, m))];
  return [fillPrompt('find-figure-head', { label, book }), ...captions, ...media].join('\n');
}

/** A find_figure result in the runner layout; `doc` is the book asked for, if any (none: every book searched). */
export function runnerFigureListing(ctx: KfToolContext, label: string, found: readonly KbMedia[], doc: string | undefined): string {
  if (!found.length) {
    // No book named: the harness searched every book, so the note names them all.
    const book = doc
      ? (ctx.kb.title(doc) ?? doc)
      : ctx.kb
          .documents()
          .map((d) => d.title || d.id)
          .join('; ');
    // The hint carries its own leading separator (the loader keeps leading space, trims trailing).
    return `${fillPrompt('find-figure-none', { book, label })}${loadPrompt('find-figure-none-hint')}`;
  }
  const docs = [...new Set(found.map((m) => m.docId))];
  return docs
    .map((d) =>
      bookBlock(
        ctx,
        label,
        ctx.kb.title(d) ?? d,
        found.filter((m) => m.docId === d),
      ),
    )
    .join('\n\n');
}
