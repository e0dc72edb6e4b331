/**
 * Neutral lookups the spec gives to both roles (list_media, find_figure): they
 * name media fragments (id, page, label, caption) without reading them.
 * Marked `shared` so the tool registry lets Locator and Deep Reader hold them.
 */
import type { AgentTool } from '../../agents/tools';
import type { FragmentKind } from '../../corpus/types';
import { KB_LIMITS, type KbMedia } from '../../pipeline/knowledge-base';
import { clip, type KfToolContext } from './context';
import { resolveBook } from './locator-tools';
import { runnerMediaListing } from './media-listing';
import { runnerFigureListing } from './figure-listing';
import { fillPrompt } from '../../util/prompts';

type Tool = AgentTool<KfToolContext>;

function mediaLine(c: KfToolContext, m: KbMedia): Record<string, unknown> {
  return {
    id: m.fragmentId,
    kind: m.kind,
    doc: c.kb.title(m.docId) ?? m.docId,
    ...(m.page !== undefined ? { page: m.page } : {}),
    ...(m.label ? { label: m.label } : {}),
    ...(m.caption ? { caption: clip(m.caption, 160) } : {}),
    ...(m.section.length ? { section: m.section.join(' > ') } : {}),
  };
}

export const listMedia: Tool = {
  name: 'list_media',
  description: `List figures and tables, filtered by document, heading, kind (image|table) and page (at most ${KB_LIMITS.mediaList}).`,
  parameters: {
    type: 'object',
    properties: { book: { type: 'string' }, heading: { type: 'string' }, kind: { type: 'string', description: 'image or table' }, page: { type: 'integer' } },
  },
  shared: true,
  async handler(args, c) {
    const doc = typeof args.book === 'string' && args.book ? resolveBook(c.context, args.book) : undefined;
    const runner = c.context.blockFormat === 'runner';
    if (typeof args.book === 'string' && args.book && !doc)
      return runner ? fillPrompt('list-media-missing', { error: 'not_found' }) : { media: [], note: `no document matches "${args.book}"` };
    const kind = args.kind === 'image' || args.kind === 'table' ? (args.kind as FragmentKind) : undefined;
    const media = c.context.kb.media({
      doc,
      heading: typeof args.heading === 'string' ? args.heading : undefined,
      kind,
      page: typeof args.page === 'number' ? args.page : undefined,
    });
    if (runner) return runnerMediaListing(c.context, media, { doc, page: typeof args.page === 'number' ? args.page : undefined });
    return { media: media.map((m) => mediaLine(c.context, m)) };
  },
};

export const findFigure: Tool = {
  name: 'find_figure',
  description: 'Find figures or tables by their printed label ("Figure 3", "Table 2"), optionally in one document.',
  parameters: { type: 'object', properties: { label: { type: 'string' }, book: { type: 'string' } }, required: ['label'] },
  shared: true,
  async handler(args, c) {
    const doc = typeof args.book === 'string' && args.book ? resolveBook(c.context, args.book) : undefined;
    if (c.context.blockFormat === 'runner') return runnerFigureListing(c.context, String(args.label), c.context.kb.findFigure(String(args.label), doc), doc);
    return { figures: c.context.kb.findFigure(String(args.label), doc).map((m) => mediaLine(c.context, m)) };
  },
};

export const SHARED_TOOLS: readonly Tool[] = [listMedia, findFigure];
