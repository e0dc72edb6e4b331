/**
 * The offline finding policies' reading of a search result in the runner's layout (blockFormat =
 * runner: material blocks, not the harness's JSON listing). Principle: an offline policy stands in for
 * a model, so it reads only what a model is shown, the text of the conversation, never a structured
 * side channel of the tool layer. The lines are recognised by the active pack's own block templates
 * (block-material, block-media-hit, block-media-attached), the layout a model is told about by
 * reading it, so the reading follows whichever pack wrote the listing.
 *
 * What each line yields: a material block its source label and text; a figure or table line its
 * fragment id (the id note) and caption. The runner's listing names no document on a figure line and
 * does not tell a figure from a table, so such a hit has no document and counts as an image. Each
 * hit's text is cut to HIT_PREVIEW_CHARS, the preview the harness listing shows: the policy reads the
 * same amount of a hit in either layout.
 */
import { fillPrompt, hasPrompt } from '../../util/prompts';
import { clip } from '../tools/context';
import { HIT_PREVIEW_CHARS } from '../tools/search';
import type { FoundHit } from './bridge-entities';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const mark = (k: string) => `\u0000${k}\u0000`;

/** A template filled with marks, escaped, each mark replaced by its pattern. */
function templatePattern(name: string, patterns: Record<string, string>): string {
  const filled = fillPrompt(name, Object.fromEntries(Object.keys(patterns).map((k) => [k, mark(k)])));
  let out = escape(filled);
  for (const [k, p] of Object.entries(patterns)) out = out.split(mark(k)).join(p);
  return out;
}

interface ListingPatterns {
  material: RegExp;
  media: RegExp[];
}

function listingPatterns(): ListingPatterns {
  const tag = hasPrompt('block-graph-tag') ? `(?:${templatePattern('block-graph-tag', {})})?` : '';
  const material = new RegExp(`^${templatePattern('block-material', { n: '\\d+', source: '(.*?)', tag, text: '(.*)' })}$`);
  const media = ['block-media-hit', 'block-media-attached'].map(
    (t) =>
      new RegExp(
        `^${templatePattern(t, {
          name: templatePattern('block-media-name', { n: '\\d+' }),
          page: `(?:${templatePattern('block-page', { page: '\\d+' })})?`,
          idNote: `(?:${templatePattern('block-id-note', { id: '(.+?)' })})?`,
          caption: '(.*)',
        })}$`,
      ),
  );
  return { material, media };
}

/** The hits a runner-layout search result lists, in order (none when the text holds no such line). */
export function runnerListingHits(text: string): FoundHit[] {
  const p = listingPatterns();
  const out: FoundHit[] = [];
  for (const line of text.split('\n')) {
    const m = p.material.exec(line);
    if (m) {
      out.push({ doc: m[1], text: clip(m[2], HIT_PREVIEW_CHARS), kind: 'text' });
      continue;
    }
    const f = p.media.map((r) => r.exec(line)).find(Boolean);
    if (f) out.push({ doc: '', text: clip(f[2], HIT_PREVIEW_CHARS), id: f[1], kind: 'image' });
  }
  return out;
}
