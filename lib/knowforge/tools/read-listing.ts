/**
 * The Deep Reader's reading results in the released runner's layout (blockFormat = runner; its
 * kfbench/materials.py writes them as text, not JSON). fragment_context: the pack's header, then the
 * fragment and its neighbours in document order, one per line, the fragment asked for marked with an
 * arrow. The runner's cuts: the fragment 1,500 characters (a figure's or table's description whole),
 * a neighbour 500. The marks are layout, not wording; the header comes from the pack. read_media: the
 * pack's header, a line per id asked (the asset's cited name, its kind, the answer cut at 1,200
 * characters; or the error), a line naming the ids over the per-call cap; the pack's note when empty.
 */
import type { Fragment } from '../../corpus/types';
import { fillPrompt, loadPrompt } from '../../util/prompts';
import { mediaName } from '../../answer/block-format';
import type { KfToolContext } from './context';

/** The runner's cuts of a fragment_context result. */
export const RUNNER_CONTEXT_CUTS = { anchor: 1500, neighbour: 500 } as const;

const squash = (s: string | undefined): string => (s ?? '').split(/\s+/).filter(Boolean).join(' ');

function contextLine(f: Fragment, anchor: boolean): string {
  const media = f.kind === 'image' || f.kind === 'table';
  const text = squash(f.text);
  if (!anchor) return `  ${text.slice(0, RUNNER_CONTEXT_CUTS.neighbour)}`;
  return `→ ${media ? text : text.slice(0, RUNNER_CONTEXT_CUTS.anchor)}`;
}

/** A fragment_context result in the runner layout: header, then the lines in document order. */
export function runnerFragmentContext(f: Fragment, neighbours: readonly Fragment[]): string {
  const lines = [...neighbours, f].sort((a, b) => a.ordinal - b.ordinal).map((x) => contextLine(x, x.id === f.id));
  return `${loadPrompt('fragment-context-header').trim()}\n${lines.join('\n')}`;
}

/** The runner's cut of one read_media answer (whitespace squashed first). */
export const RUNNER_READ_ANSWER_CHARS = 1200;

/** One read_media entry as the handler builds it: an answer, or an error for that id. */
export interface ReadMediaEntry {
  id: string;
  answer?: string;
  error?: { code: string; detail?: string; recoverable?: boolean };
}

/**
 * The name an asset is cited by: the pack's media name with the number the listing or the pool gave it;
 * an asset never listed has no number, so it goes by its fragment id (the runner names it as it goes,
 * but a number made up here would not resolve to a pool block).
 */
function mediaCiteName(ctx: KfToolContext, id: string): string {
  const n = ctx.listed.get(id) ?? ctx.poolNumbers?.get(id);
  return n !== undefined ? mediaName(n) : id;
}

/** A read_media result in the runner layout: header, one line per id asked (answer or error), the ids over the cap. */
export function runnerReadMedia(ctx: KfToolContext, entries: readonly ReadMediaEntry[], skipped: readonly string[]): string {
  const lines = entries.map((e) =>
    e.error
      ? fillPrompt('read-media-error', { id: e.id, error: e.error.detail ?? e.error.code })
      : fillPrompt('read-media-answer', {
          name: mediaCiteName(ctx, e.id),
          kind: ctx.kb.fragment(e.id)?.kind ?? '',
          answer: squash(e.answer).slice(0, RUNNER_READ_ANSWER_CHARS),
        }),
  );
  if (skipped.length) lines.push(fillPrompt('read-media-skipped', { ids: skipped.join(', ') }));
  if (!lines.length) return loadPrompt('read-media-empty').trim();
  return `${loadPrompt('read-media-header').trim()}\n${lines.join('\n')}`;
}
