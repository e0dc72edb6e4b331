/**
 * How the evidence pool is written out for the judge, the Deep Reader and the
 * synthesizer (setting `blockFormat`):
 *   harness  one line per block, `[N] (text · source · id=...)` / `[fig N] image · p.3 · ...`
 *   runner   the released runner's layout (kfbench/materials.py): a material block per text hit
 *            (number, source label, graph tag, text cut to 700 characters, its neighbours and its
 *            attached figures as indented lines), the figures and tables a search hit directly under
 *            one group header per search, examples under their own header, blocks separated by a blank
 *            line. The runner notes its synthesizer prompt was tuned on these blocks.
 * The runner layout's wording comes from the prompt pack: the knowforge-bench pack imports the
 * runner's block f-strings from materials.py, the own pack holds the same layout in our words
 * (prompts/block-*.txt). Numbers stay the pool's global numbers, so every citation ([N], and the
 * pack's media mark, e.g. [fig N]) resolves through `numberOf` as before.
 */
import type { FragmentKind } from '../corpus/types';
import { fillPrompt, hasPrompt, loadPrompt } from '../util/prompts';

export type BlockFormat = 'harness' | 'runner';
export const BLOCK_FORMATS = ['harness', 'runner'] as const;

/** What a block needs to be written in the runner's layout (kept on the block: the number comes after eviction). */
export interface RunnerBlockParts {
  /** Section title, else the document's title (the runner: section_title or source_file). */
  label: string;
  /** Text (text and example blocks) or caption (media), whitespace-normalised and cut as the runner cuts it. */
  text: string;
  /** Neighbouring passages (text blocks). */
  context: string[];
  /** Reached through the graph (the runner's from_graph tag). */
  graph: boolean;
  page?: number;
}

const squash = (s: string | undefined): string => (s ?? '').split(/\s+/).filter(Boolean).join(' ');

/** The runner's cuts: 700 characters of a text hit, 160 of a caption, 300 of an example (hard cuts). */
export const RUNNER_CUTS = { text: 700, caption: 160, example: 300 } as const;

export function runnerParts(
  kind: FragmentKind,
  src: { text?: string; caption?: string; section?: string[]; title: string; page?: number; context?: { prev?: string; next?: string }; graph: boolean },
): RunnerBlockParts {
  const section = (src.section ?? []).filter(Boolean);
  const label = squash(section[section.length - 1] ?? src.title);
  const media = kind === 'image' || kind === 'table';
  const cut = media ? RUNNER_CUTS.caption : kind === 'example' ? RUNNER_CUTS.example : RUNNER_CUTS.text;
  const text = squash(media ? src.caption || src.text : src.text).slice(0, cut);
  const context = media || kind === 'example' ? [] : [src.context?.prev, src.context?.next].map(squash).filter(Boolean);
  return { label, text, context, graph: src.graph, page: src.page };
}

/** The pack's name of media number n (the runner: a figure number; the own pack: `fig N`). */
export function mediaName(n: number | string): string {
  return fillPrompt('block-media-name', { n: String(n) });
}

function mediaLine(n: number, p: RunnerBlockParts, fragmentId: string, attached: boolean): string {
  const page = p.page !== undefined ? fillPrompt('block-page', { page: String(p.page) }) : '';
  const idNote = fillPrompt('block-id-note', { id: fragmentId });
  const caption = p.text || (hasPrompt('block-no-caption') ? loadPrompt('block-no-caption') : '');
  return fillPrompt(attached ? 'block-media-attached' : 'block-media-hit', { name: mediaName(n), page, idNote, caption });
}

/** One block's own lines in the runner layout (what the pool's caps count). */
export function runnerBlockText(b: { kind: FragmentKind; fragmentId: string; via: string; parts?: RunnerBlockParts }, n: number, inAnchor: boolean): string {
  const p = b.parts ?? { label: '', text: '', context: [], graph: false };
  if (b.kind === 'image' || b.kind === 'table') return mediaLine(n, p, b.fragmentId, b.via === 'attached' && inAnchor);
  if (b.kind === 'example') return fillPrompt('block-example', { text: p.text });
  const tag = p.graph && hasPrompt('block-graph-tag') ? loadPrompt('block-graph-tag') : '';
  const head = fillPrompt('block-material', { n: String(n), source: p.label, tag, text: p.text });
  return [head, ...p.context.map((c) => fillPrompt('block-context', { text: c }))].join('\n');
}

/** The group a kept block's lines join: its anchor's material block, its search's figure group, its search's examples. */
function groupOf(b: { kind: FragmentKind; via: string; anchorId?: string; search: number }, last: string): string {
  if (b.kind === 'image' || b.kind === 'table') return b.via === 'attached' && b.anchorId && last === `in:${b.anchorId}` ? last : `media:${b.search}`;
  if (b.kind === 'example') return `example:${b.search}`;
  return 'text';
}

/**
 * The pool text in the runner layout. Blocks stay in pool order. A figure attached to a text hit comes
 * right after it (collectBlocks adds it there), so it joins that material block; one whose anchor is
 * gone or elsewhere is written as a figure of its search. Consecutive figures of one search share one
 * group header, consecutive examples theirs.
 */
export function renderRunnerPool(
  kept: readonly { kind: FragmentKind; fragmentId: string; via: string; anchorId?: string; search: number; parts?: RunnerBlockParts }[],
  numberOf: ReadonlyMap<string, number>,
): string {
  const units: string[] = [];
  let last = '';
  for (const b of kept) {
    const g = groupOf(b, last);
    const line = runnerBlockText(b, numberOf.get(b.fragmentId) ?? 0, g.startsWith('in:'));
    if (g !== 'text' && g === last) units[units.length - 1] += `\n${line}`;
    else if (g.startsWith('media:')) units.push(`${loadPrompt('block-media-header')}\n${line}`);
    else if (g.startsWith('example:')) units.push(`${loadPrompt('block-examples-header')}\n${line}`);
    else units.push(line);
    last = g === 'text' ? `in:${b.fragmentId}` : g;
  }
  return units.join('\n\n');
}

/**
 * Citations in a text: `[N]` (a text block) and a short name before the number (a media block: `[fig N]`,
 * or a pack's media name such as the runner's), as {n, media}. Pack-independent on purpose: answers are
 * also read after the run (kf ask), outside the pack's scope.
 */
export function citedNumbers(text: string): { n: number; media: boolean }[] {
  return [...text.matchAll(/\[([^[\]\d\n]{1,12})?(\d+)\]/g)].map((m) => ({ n: Number(m[2]), media: m[1] !== undefined }));
}

/**
 * The numbered blocks of a rendered pool, in either layout, as {n, text}: a block starts at an unindented
 * line whose first citation is its number ([N] ... in the harness layout, a material block in the runner's)
 * or at an indented figure line carrying a media citation; other lines belong to the block above. Example
 * lines and group headers carry no number (the runner does not number examples).
 */
export function numberedBlocks(poolText: string): { n: number; text: string }[] {
  const out: { n: number; text: string }[] = [];
  for (const unit of poolText.split(/\n{2,}/)) {
    let cur: { n: number; text: string } | undefined;
    for (const line of unit.split('\n')) {
      const c = citedNumbers(line)[0];
      const indented = /^\s/.test(line);
      if (c && (!indented || c.media)) out.push((cur = { n: c.n, text: line }));
      else if (cur) cur.text += `\n${line}`;
    }
  }
  return out;
}
