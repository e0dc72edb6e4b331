/**
 * The Deep Reader's reading results in the released runner's layout (blockFormat = runner; its
 * kfbench/materials.py writes them as text, not JSON). fragment_context: the pack's header, then the
 * fragment and its neighbours in document order, one per line, the fragment asked for marked with an
 * arrow. The runner's cuts: the fragment 1,500 characters (a figure's or table's description whole),
 * a neighbour 500. The marks are layout, not wording; the header comes from the pack.
 */
import type { Fragment } from '../../corpus/types';
import { loadPrompt } from '../../util/prompts';

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
