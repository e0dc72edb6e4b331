/**
 * A search result as the released runner shows it to the finding role (blockFormat = runner; its
 * kfbench/materials.py writes the search result the agent reads with the same builder as the pool):
 * the weak-relevance note first when the best hit is under the gate, then the material blocks of the
 * hits no earlier search of this loop listed (the runner skips a fragment it already showed), each
 * with the number it keeps in the pool, the search's figures and tables under one group header; a
 * search that lists nothing new gets the pack's "nothing new" note instead. The blocks are written by
 * the pool's own runner layout (block-format.ts), so the Locator reads the very lines the judge and
 * the synthesizer will read.
 *
 * Numbers follow the pool's first-appearance rule (each hit, then the figures attached to it), so the
 * number a block is listed under is the number it has in the pool built from the same searches.
 */
import type { SearchHit } from '../../index/types';
import { fillPrompt, loadPrompt } from '../../util/prompts';
import { renderRunnerPool, runnerParts } from '../../answer/block-format';
import type { KfToolContext, SearchLogEntry } from './context';

type ListedBlock = Parameters<typeof renderRunnerPool>[0][number];

function hitBlock(ctx: KfToolContext, h: SearchHit): ListedBlock {
  const own = h.media.find((m) => m.fragmentId === h.fragmentId);
  const caption = ctx.kb.fragment(h.fragmentId)?.caption ?? own?.caption;
  const title = ctx.kb.title(h.docId) ?? h.docId;
  const graph = h.via === 'expansion';
  const parts = runnerParts(h.kind, { text: h.text, caption, section: h.section, title, page: h.page, context: h.context, graph });
  return { kind: h.kind, fragmentId: h.fragmentId, via: h.via, anchorId: h.anchorId, search: 0, parts };
}

function attachedBlock(ctx: KfToolContext, h: SearchHit, m: SearchHit['media'][number]): ListedBlock {
  const f = ctx.kb.fragment(m.fragmentId);
  const title = ctx.kb.title(f?.docId ?? h.docId) ?? h.docId;
  const parts = runnerParts(m.kind, {
    text: f?.text,
    caption: f?.caption ?? m.caption,
    section: f?.section ?? h.section,
    title,
    page: f?.page ?? h.page,
    graph: false,
  });
  return { kind: m.kind, fragmentId: m.fragmentId, via: 'attached', anchorId: h.fragmentId, search: 0, parts };
}

/** The blocks this search adds (fragments not listed before), numbered in first-appearance order. */
function newBlocks(ctx: KfToolContext, entry: SearchLogEntry): ListedBlock[] {
  const out: ListedBlock[] = [];
  const add = (b: ListedBlock) => {
    if (ctx.listed.has(b.fragmentId)) return;
    ctx.listed.set(b.fragmentId, ctx.listed.size + 1);
    out.push(b);
  };
  for (const h of entry.hits) {
    add(hitBlock(ctx, h));
    for (const m of h.media) if (m.fragmentId !== h.fragmentId) add(attachedBlock(ctx, h, m));
  }
  return out;
}

/** The runner-layout listing of one search (a string: the tool result the model reads). */
export function renderRunnerListing(ctx: KfToolContext, entry: SearchLogEntry, weak: boolean): string {
  const blocks = newBlocks(ctx, entry);
  if (!blocks.length) return loadPrompt('search-nothing-new').trim();
  const body = renderRunnerPool(blocks, ctx.listed);
  return weak ? `${fillPrompt('weak-relevance', {}).trim()}\n${body}` : body;
}
