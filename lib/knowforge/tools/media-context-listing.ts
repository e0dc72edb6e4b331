/**
 * media_context's result in the released runner's layout (blockFormat = runner; its kfbench/materials.py
 * writes it as text): a head (kind word, fragment id, page), the figure's whole description, its caption,
 * the body text of its page, the page's other figures and tables, and a closing hint; an error note when
 * the id is not a figure or table (the runner's tool takes media ids only). Every word comes from the pack
 * (media-context-*), the layout is the runner's.
 *
 * The runner guesses caption-like lines from the page text; the harness has each figure's stored caption,
 * so that line carries the caption of the figure asked about.
 */
import type { Fragment } from '../../corpus/types';
import { KB_LIMITS } from '../../pipeline/knowledge-base';
import { fillPrompt, hasPrompt, loadPrompt } from '../../util/prompts';
import { clip, type KfToolContext } from './context';

/** A sibling's description cut (list_media's cut). */
const DESC_CHARS = 160;

const kindWord = (kind: string) => loadPrompt(kind === 'image' ? 'list-media-image' : 'list-media-table');
const noCaption = () => (hasPrompt('block-no-caption') ? loadPrompt('block-no-caption') : '');

/**
 * A line head and what follows it: the loader trims a template's trailing space, so it is written here,
 * except after a full-width (CJK) mark, which carries its own spacing.
 */
export function afterHead(head: string, rest: string): string {
  return /[\u3000-\u303f\uff00-\uffef]$/u.test(head) ? `${head}${rest}` : `${head} ${rest}`;
}

/**
 * A media_context result in the runner layout; `body` is the page's text, `siblings` the page's other
 * media when the knowledge base gave them (its media context), else they are listed here.
 */
export function runnerMediaContext(
  ctx: KfToolContext,
  f: Fragment | undefined,
  body: string,
  siblings?: readonly { fragmentId: string; kind: string; desc: string }[],
): string {
  if (!f) return fillPrompt('media-context-error', { error: 'not_found' });
  if (f.kind !== 'image' && f.kind !== 'table') return fillPrompt('media-context-error', { error: 'not_media' });
  const kind = kindWord(f.kind);
  const page = f.page !== undefined ? String(f.page) : '?';
  const lines = [
    fillPrompt('media-context-head', { kind, id: f.id, page }),
    fillPrompt('media-context-desc', { kind, desc: clip(f.text, KB_LIMITS.hitChars) || noCaption() }),
  ];
  if (f.caption) lines.push(afterHead(loadPrompt('media-context-captions'), f.caption));
  if (body) lines.push(fillPrompt('media-context-text', { text: body }));
  const others =
    siblings ??
    (f.page === undefined ? [] : ctx.kb.media({ doc: f.docId, page: f.page }).filter((m) => m.fragmentId !== f.id)).map((s) => ({
      fragmentId: s.fragmentId,
      kind: s.kind,
      desc: clip(s.caption ?? ctx.kb.fragment(s.fragmentId)?.text, DESC_CHARS),
    }));
  if (others.length) {
    const items = others.map((s) => fillPrompt('media-context-sibling', { kind: kindWord(s.kind), id: s.fragmentId, desc: s.desc || noCaption() }));
    const sep = afterHead(loadPrompt('media-context-sibling-sep'), '');
    lines.push(afterHead(loadPrompt('media-context-siblings'), items.join(sep)));
  }
  lines.push(loadPrompt('media-context-footer'));
  return lines.join('\n');
}
