/**
 * The endpoints that list figures and tables: `list-media` (a book's figures and tables by page,
 * optionally of one kind, one page, or under one heading) and `find-figure` (where a label such as
 * "Figure 5" is printed, and the figures and tables of those pages).
 */
import type { Fragment } from '../corpus/types';
import { normaliseLabel } from '../pipeline/engine-knowledge-base';
import { KB_LIMITS } from '../pipeline/knowledge-base';
import { chooseBook } from './book-endpoints';
import { mediaItemJson, type Json } from './json';
import type { ServedPackage } from './packages';

/** Printed lines kept per kind (captions, mentions). */
const LINES = 5;
const LINE_CHARS = 200;

const isMedia = (f: Fragment) => f.kind === 'image' || f.kind === 'table';

/** The section a heading names: its title, its pages and the next heading of the same depth. */
function headingSpan(all: Fragment[], heading: string): { title: string; start: number | null; end: number | null; next_title?: string } | undefined {
  const want = heading.toLowerCase();
  const at = all.findIndex((f) => f.section.some((s) => s.toLowerCase().includes(want)));
  if (at < 0) return undefined;
  const depth = all[at].section.findIndex((s) => s.toLowerCase().includes(want));
  const title = all[at].section[depth];
  const inside = all.filter((f) => f.section[depth] === title);
  const pages = inside.map((f) => f.page).filter((p): p is number => p !== undefined);
  const after = all
    .slice(at)
    .find(
      (f) =>
        f.section.length > depth && f.section[depth] !== title && f.section.slice(0, depth).join('\u0000') === all[at].section.slice(0, depth).join('\u0000'),
    );
  return {
    title,
    start: pages.length ? Math.min(...pages) : null,
    end: pages.length ? Math.max(...pages) : null,
    ...(after ? { next_title: after.section[depth] } : {}),
  };
}

export function listMedia(pkg: ServedPackage, q: URLSearchParams): Json {
  const choice = chooseBook(pkg, q.get('book'));
  if ('error' in choice) return choice.error;
  const doc = choice.doc;
  const kindArg = (q.get('kind') ?? 'all').trim().toLowerCase();
  // Argument mistakes are answers the agent can read (the runner shows `error`), not HTTP failures.
  if (!['all', 'image', 'table', ''].includes(kindArg)) return { error: `bad_kind: ${kindArg} (image, table or all)` };
  const pageArg = (q.get('page') ?? '').trim();
  const page = pageArg ? Number(pageArg) : undefined;
  if (page !== undefined && !Number.isInteger(page)) return { error: `bad_page: ${pageArg} (a page number)` };
  const heading = (q.get('heading') ?? '').trim();
  const all = pkg.corpus.fragmentsOf(doc.id);
  const media = all.filter(isMedia);
  const span = heading ? headingSpan(all, heading) : undefined;
  const items = media.filter(
    (f) => (kindArg === 'all' || !kindArg || f.kind === kindArg) && (page === undefined || f.page === page) && (!span || f.section.includes(span.title)),
  );
  const shown = items.slice(0, KB_LIMITS.mediaList).map((f) => ({
    ...mediaItemJson(pkg, f),
    ...(span && f.page !== undefined && (f.page === span.start || f.page === span.end) ? { boundary: true } : {}),
  }));
  return {
    book: doc.file,
    title: doc.title,
    kind: kindArg || 'all',
    ...(pageArg ? { page } : {}),
    ...(heading ? { heading } : {}),
    ...(span ? { span: { mode: 'heading', ...span } } : heading ? { heading_missed: true } : {}),
    total_images: media.filter((f) => f.kind === 'image').length,
    total_tables: media.filter((f) => f.kind === 'table').length,
    matched: items.length,
    shown: shown.length,
    truncated: items.length > shown.length,
    items: shown,
  };
}

/** "Figure 5" / "fig. 5" / "Table 3" / "图5" -> its kind word and number, or undefined. */
function parseLabel(label: string): { word: 'figure' | 'table'; n: string } | undefined {
  const cjk = /^\s*(图|表)\s*(\d+)\s*$/.exec(label);
  if (cjk) return { word: cjk[1] === '图' ? 'figure' : 'table', n: cjk[2] };
  const m = /^(figure|table) (\d+[a-z]?)$/.exec(normaliseLabel(label));
  return m ? { word: m[1] as 'figure' | 'table', n: m[2] } : undefined;
}

function labelPattern(p: { word: 'figure' | 'table'; n: string }): RegExp {
  const words = p.word === 'figure' ? '(?:fig(?:ure)?s?\\.?|图)' : '(?:tab(?:le)?s?\\.?|表)';
  return new RegExp(`${words}\\s*${p.n}(?![\\d])`, 'i');
}

/** Printed lines naming the label: captions (a line that opens with it) and mentions (elsewhere in a line). */
function printedLines(all: Fragment[], re: RegExp): { captions: Json[]; mentions: Json[] } {
  const captions: Json[] = [];
  const mentions: Json[] = [];
  for (const f of all) {
    if (f.kind !== 'text' || !re.test(f.text)) continue;
    for (const line of f.text.split(/\n+|(?<=[.!?])\s+/)) {
      const m = re.exec(line);
      if (!m) continue;
      const l = line.replace(/\s+/g, ' ').trim();
      const entry = { page: f.page ?? null, line: l.slice(0, LINE_CHARS), fragment_id: f.id };
      if (m.index <= 2 && captions.length < LINES) captions.push(entry);
      else if (m.index > 2 && mentions.length < LINES) mentions.push({ ...entry, line: l.slice(Math.max(0, m.index - 80), m.index + 120) });
    }
  }
  return { captions, mentions };
}

export function findFigure(pkg: ServedPackage, q: URLSearchParams): Json {
  const label = (q.get('label') ?? '').trim();
  const parsed = parseLabel(label);
  if (!parsed) return { error: 'bad_label', label };
  const choice = chooseBook(pkg, q.get('book'));
  if ('error' in choice) return choice.error;
  const doc = choice.doc;
  const all = pkg.corpus.fragmentsOf(doc.id);
  const labelled = pkg.kb.findFigure(label, doc.id).map((m) => all.find((f) => f.id === m.fragmentId)!);
  const { captions, mentions } = printedLines(all, labelPattern(parsed));
  const printed = (captions.length ? captions : mentions).map((c) => c.page).filter((p): p is number => typeof p === 'number');
  const pages = [...new Set([...labelled.map((f) => f.page).filter((p): p is number => p !== undefined), ...printed])].sort((a, b) => a - b);
  const media = labelled.length ? labelled : all.filter((f) => isMedia(f) && f.page !== undefined && pages.includes(f.page));
  return {
    label,
    book: doc.file,
    title: doc.title,
    pages,
    captions,
    mentions,
    media: media.slice(0, KB_LIMITS.mediaList).map((f) => mediaItemJson(pkg, f)),
  };
}
