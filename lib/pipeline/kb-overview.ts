/**
 * What a knowledge base says about itself (the view's `overview`, the hosted API's `overview` and
 * `card`): a name, one line on what it holds, and its parts. A single document's parts are its
 * top-level headings; a corpus's are its document titles. The released runner turns these fields
 * into the persona it opens every agent's system prompt with.
 */
import type { Fragment } from '../corpus/types';
import type { KbOverview } from './knowledge-base';

/** Parts listed at most. */
export const OVERVIEW_MODULES = 20;
/** Length of the one-line goal. */
const GOAL_CHARS = 300;

export interface OverviewDocument {
  id: string;
  title: string;
  fragments: readonly Fragment[];
}

function pagesOf(fragments: readonly Fragment[]): number {
  return fragments.reduce((m, f) => Math.max(m, f.page ?? 0), 0);
}

/** The top-level headings of a document, in reading order, each once. */
function topHeadings(fragments: readonly Fragment[]): string[] {
  const out: string[] = [];
  for (const f of fragments) {
    const h = f.section[0]?.trim();
    if (h && !out.includes(h)) out.push(h);
    if (out.length >= OVERVIEW_MODULES) break;
  }
  return out;
}

/** The overview of `docs`: a single document is named by its title, a corpus by `name`. */
export function overviewOf(docs: readonly OverviewDocument[], name?: string): KbOverview {
  const fragments = docs.reduce((n, d) => n + d.fragments.length, 0);
  if (docs.length === 1) {
    const d = docs[0];
    const pages = pagesOf(d.fragments);
    const goal = `${d.title}${pages ? ` (${pages} pages)` : ''}`;
    return { name: d.title, goal: goal.slice(0, GOAL_CHARS), modules: topHeadings(d.fragments), documents: 1, fragments };
  }
  const titles = docs.map((d) => d.title);
  const goal = `${docs.length} documents: ${titles.join('; ')}`;
  return { name: name ?? 'knowledge base', goal: goal.slice(0, GOAL_CHARS), modules: titles.slice(0, OVERVIEW_MODULES), documents: docs.length, fragments };
}
