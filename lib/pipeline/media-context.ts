/**
 * A figure or table seen with its page (the knowledge-base view's `mediaContext`, the hosted API's
 * `media-context`): its whole description, caption-like lines, the body text printed on its page and
 * the page's other figures and tables. Built from a document's fragments in reading order, so every
 * view over fragments (the engine's, a served package) answers it the same way.
 */
import type { Fragment } from '../corpus/types';
import { KB_LIMITS, type KbMediaContext } from './knowledge-base';

/** How much of a sibling's description is shown (list_media's cut). */
export const MEDIA_DESC_CHARS = 160;
/** Caption-like lines kept besides the stored caption. */
const CAPTION_LINES = 4;
/** Fragments this many positions each side of the figure give its page text (the Deep Reader's media_context). */
const AROUND = 6;

const CAPTION_START = /^\s*(fig(?:ure)?s?\.?|tab(?:le)?s?\.?|图|表)\s*\d+/i;

const squash = (t: string | undefined) => (t ?? '').replace(/\s+/g, ' ').trim();

/** Whitespace squashed, cut to `n` characters with an ellipsis (the agent tools' cut). */
function clipTo(t: string | undefined, n: number): string {
  const s = squash(t);
  return s.length <= n ? s : `${s.slice(0, Math.max(0, n - 1))}…`;
}

/** A media fragment's one-line description: its label and caption, else its stored text. */
export function mediaDesc(f: Pick<Fragment, 'label' | 'caption' | 'text'>, max = MEDIA_DESC_CHARS): string {
  const cap = squash(f.caption);
  const head = f.label && cap && !cap.toLowerCase().startsWith(f.label.toLowerCase()) ? `${f.label}: ${cap}` : cap || f.label || '';
  return clipTo(head || f.text, max);
}

/** Lines of `text` that open with a figure or table label ("Figure 3: ...", "Table 2 ..."). */
export function captionLines(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+(?=(?:fig|tab|图|表))/i)
    .map((l) => squash(l))
    .filter((l) => CAPTION_START.test(l));
}

/** The fragments around `f` in reading order (AROUND each side), only those of its page when it has one. */
function pageOf(f: Fragment, docFragments: readonly Fragment[]): Fragment[] {
  const at = docFragments.findIndex((x) => x.id === f.id);
  const around = docFragments.slice(Math.max(0, at - AROUND), at + AROUND + 1);
  return f.page === undefined ? around : around.filter((x) => x.page === f.page);
}

/** `f` in its page's context; undefined when `f` is not a figure or table. */
export function mediaContextOf(f: Fragment, docFragments: readonly Fragment[]): KbMediaContext | undefined {
  if (f.kind !== 'image' && f.kind !== 'table') return undefined;
  const page = pageOf(f, docFragments);
  const body = page.filter((x) => x.kind === 'text' && x.id !== f.id);
  const pageText = clipTo(body.map((x) => x.text).join(' '), KB_LIMITS.hitChars);
  const captions: string[] = [];
  const stored = f.caption ? mediaDesc(f, KB_LIMITS.neighbourChars) : '';
  if (stored) captions.push(stored);
  for (const line of body.flatMap((x) => captionLines(x.text))) {
    if (captions.length > CAPTION_LINES) break;
    const l = clipTo(line, MEDIA_DESC_CHARS);
    if (!captions.includes(l)) captions.push(l);
  }
  return {
    fragmentId: f.id,
    docId: f.docId,
    kind: f.kind,
    page: f.page,
    desc: squash(f.text),
    ...(f.label ? { label: f.label } : {}),
    ...(f.caption ? { caption: f.caption } : {}),
    captions,
    pageText,
    // The page's other media: all of the page's (not only those around), none without a page number.
    siblings: (f.page === undefined ? [] : docFragments.filter((x) => x.page === f.page))
      .filter((x) => x.id !== f.id && (x.kind === 'image' || x.kind === 'table'))
      .map((x) => ({ fragmentId: x.id, kind: x.kind, page: x.page, desc: clipTo(x.caption ?? x.text, MEDIA_DESC_CHARS) })),
  };
}
