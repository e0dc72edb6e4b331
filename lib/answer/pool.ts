/**
 * The typed, size-bounded evidence pool (KnowForge job 4): a multi-list ranked
 * merge of every search of the Locator and the bridge judge, handed unchanged to
 * the Deep Reader and the synthesizer.
 *
 * Why typed: text hits score systematically higher than figures, tables and
 * examples (a caption shares fewer of the question's words than a paragraph
 * does), so one shared ranking would push the media out before any text. Each type gets its own cap, and within
 * a type the top 3 hits of every search are protected.
 *
 * Rules (spec "Typed, size-bounded evidence pool"):
 *  - caps in characters: total 30,000; images 3,000; tables 3,000; examples 2,000;
 *    text = max(4,000, total - 8,000). A block costs len + 2.
 *  - if everything fits in the total, nothing is dropped.
 *  - otherwise: within each search's list, hits are ranked by raw score and the
 *    top 3 are protected; across searches a fragment keeps its best score;
 *    expansion blocks and media attached to a text hit inherit their anchor's
 *    score and protection; blocks are added in order and, while a type is over
 *    its cap, the unprotected block of that type with the lowest score is evicted
 *    (ties: the later one); survivors keep their order.
 *  - rendered as numbered material blocks with global numbers, each fragment
 *    once, text cut to ~700 chars with a section/source label; media as
 *    `[fig N]` handles with page label and fragment id (format harness), or in
 *    the released runner's block layout (format runner, block-format.ts), where
 *    a block keeps the number it got when it first appeared.
 *  - M4 ablation ("plain"): one 12K cap, first come first kept.
 */
import type { Fragment, FragmentKind } from '../corpus/types';
import type { SearchHit } from '../index/types';
import { renderRunnerPool, runnerBlockText, runnerParts, type BlockFormat, type RunnerBlockParts } from './block-format';

export interface PoolCaps {
  total: number;
  image: number;
  table: number;
  example: number;
  /** Defaults to max(4000, total - 8000). */
  text?: number;
}

export const PAPER_CAPS: PoolCaps = { total: 30_000, image: 3_000, table: 3_000, example: 2_000 };

export interface PoolSearch {
  query: string;
  /** Who ran it: 'oneshot' | 'locator' | 'bridge' | ... */
  by: string;
  hits: SearchHit[];
}

export interface PoolOptions {
  /**
   * 'typed' = the paper's pool; 'plain' = the M4 ablation (first-come, one cap);
   * 'ranked' = ONE ranked list with the typed pool's eviction rule over a single cap
   * (what the paper argues against: text outscores media, so media are evicted first).
   */
  kind?: 'typed' | 'plain' | 'ranked';
  caps?: PoolCaps;
  /** Cap of the plain pool (M4: 12,000). */
  plainCap?: number;
  /** Characters of a text block's own text (~700 in the paper). */
  textChars?: number;
  /** Characters of a media description in its handle. */
  mediaChars?: number;
  /** Characters of each neighbour in a text block's context. */
  contextChars?: number;
  /** Full fragments by id (media descriptions, titles); absent ones render from the hit alone. */
  lookup?: (fragmentId: string) => Fragment | undefined;
  /** Document titles for source labels. */
  docTitle?: (docId: string) => string | undefined;
  /**
   * How blocks are protected and compared (typed and ranked pools):
   * 'runner' (the released runner): within each search the top 3 hits OF EACH TYPE are protected, and
   * across searches a fragment is valued by its dense (vector) score, the one score comparable between
   * queries; when only protected blocks of a type are left over its cap, the lowest of them goes too.
   * 'harness' (the harness's earlier rule): the top 3 of the whole search are protected, the fused score
   * is compared across searches, and protected blocks are never evicted.
   */
  ranking?: 'runner' | 'harness';
  /** How the pool is written out: the harness's one-line blocks (default) or the runner's layout (lib/answer/block-format.ts). */
  format?: BlockFormat;
}

export interface PoolBlock {
  fragmentId: string;
  docId: string;
  kind: FragmentKind;
  page?: number;
  score: number;
  protected: boolean;
  /** First appearance: search index and rank within it. */
  search: number;
  rank: number;
  via: SearchHit['via'] | 'attached';
  anchorId?: string;
  /** Rendered body without the number prefix (what the cap counts). */
  body: string;
  cost: number;
  /** The fragment's full retrievable text (uncut), its table, OCR text and caption: what readers and the offline synthesizer use. */
  text: string;
  table?: Fragment['table'];
  ocrText?: string;
  caption?: string;
  /** Source label (document title › section · page). */
  source: string;
  /** What the runner layout writes of it (blockFormat runner). */
  parts?: RunnerBlockParts;
}

export interface PoolStats {
  blocks: number;
  chars: number;
  trimmed: boolean;
  evicted: Record<FragmentKind, number>;
  byKind: Record<FragmentKind, number>;
  offered: number;
}

export interface EvidencePool {
  /** The layout of `text` (harness when unset). */
  format?: BlockFormat;
  blocks: PoolBlock[];
  /** Global number of each fragment in the rendering ([N] / [fig N]). */
  numberOf: Map<string, number>;
  text: string;
  stats: PoolStats;
}

const KINDS: FragmentKind[] = ['text', 'image', 'table', 'example'];
const zero = (): Record<FragmentKind, number> => ({ text: 0, image: 0, table: 0, example: 0 });

function cut(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length <= n ? t : `${t.slice(0, n - 1).replace(/\s+\S*$/, '')}…`;
}

function capOf(kind: FragmentKind, caps: PoolCaps): number {
  if (kind === 'text') return caps.text ?? Math.max(4_000, caps.total - 8_000);
  return caps[kind];
}

function isMedia(kind: FragmentKind): boolean {
  return kind === 'image' || kind === 'table';
}

function sourceLabel(docId: string, section: string[], page: number | undefined, opts: PoolOptions): string {
  const title = opts.docTitle?.(docId) ?? docId;
  const parts = [title, ...section.filter((s) => s && s !== title)].join(' › ');
  return page !== undefined ? `${parts} · p.${page}` : parts;
}

function textBody(
  hit: { fragmentId: string; docId: string; kind: FragmentKind; text: string; page?: number; section: string[]; context?: { prev?: string; next?: string } },
  opts: PoolOptions,
): string {
  const textChars = opts.textChars ?? 700;
  const ctxChars = opts.contextChars ?? 200;
  const head = `(${hit.kind === 'example' ? 'worked example' : 'text'} · ${sourceLabel(hit.docId, hit.section, hit.page, opts)} · id=${hit.fragmentId})`;
  const lines = [head, cut(hit.text, textChars)];
  if (hit.context?.prev) lines.push(`  before: ${cut(hit.context.prev, ctxChars)}`);
  if (hit.context?.next) lines.push(`  after: ${cut(hit.context.next, ctxChars)}`);
  return lines.join('\n');
}

function mediaBody(
  fragmentId: string,
  kind: FragmentKind,
  fallback: { docId: string; page?: number; label?: string; caption?: string; text?: string },
  opts: PoolOptions,
): string {
  const f = opts.lookup?.(fragmentId);
  const page = f?.page ?? fallback.page;
  const label = f?.label ?? fallback.label;
  const caption = f?.caption ?? fallback.caption;
  const description = f?.text ?? fallback.text ?? '';
  const head = `${kind}${page !== undefined ? ` · p.${page}` : ''} · id=${fragmentId}${label ? ` · ${label}` : ''}`;
  const desc = cut(description, opts.mediaChars ?? 400);
  return [head, caption ? `caption: ${cut(caption, 200)}` : '', desc && desc !== caption ? desc : ''].filter(Boolean).join('\n');
}

/**
 * The protected hits of one search, ranked by their raw score: the top 3 of the whole search (harness),
 * or the top 3 of each type (runner: text hits outscore media, so one list would protect text only).
 * Expansion hits are not ranked; they inherit their anchor's protection.
 */
function protectedInSearch(hits: readonly SearchHit[], perType: boolean): Set<string> {
  const own = hits.filter((h) => h.via !== 'expansion').sort((a, b) => b.score - a.score || a.rank - b.rank);
  if (!perType) return new Set(own.slice(0, 3).map((h) => h.fragmentId));
  const out = new Set<string>();
  for (const kind of KINDS) for (const h of own.filter((x) => x.kind === kind).slice(0, 3)) out.add(h.fragmentId);
  return out;
}

/** Body and cost of a block in the pool's layout (the runner layout's number is filled in at render time). */
function withBody(b: Omit<PoolBlock, 'body' | 'cost'>, harnessBody: () => string, opts: PoolOptions): PoolBlock {
  const body = opts.format === 'runner' ? runnerBlockText(b, 0, b.via === 'attached') : harnessBody();
  return { ...b, body, cost: body.length + 2 };
}

/** The block of one search hit. */
function hitBlock(h: SearchHit, si: number, score: number, prot: boolean, opts: PoolOptions): PoolBlock {
  const own = h.media.find((m) => m.fragmentId === h.fragmentId);
  const hf = opts.lookup?.(h.fragmentId);
  const title = opts.docTitle?.(h.docId) ?? h.docId;
  const block = {
    fragmentId: h.fragmentId,
    docId: h.docId,
    kind: h.kind,
    page: h.page,
    score,
    protected: prot,
    search: si,
    rank: h.rank,
    via: h.via,
    anchorId: h.anchorId,
    text: h.text,
    table: hf?.table,
    ocrText: hf?.ocrText,
    caption: hf?.caption ?? own?.caption,
    source: sourceLabel(h.docId, h.section, h.page, opts),
    parts: runnerParts(h.kind, {
      text: h.text,
      caption: hf?.caption ?? own?.caption,
      section: h.section,
      title,
      page: h.page,
      context: h.context,
      graph: h.via === 'expansion',
    }),
  };
  const harness = () =>
    isMedia(h.kind)
      ? mediaBody(h.fragmentId, h.kind, { docId: h.docId, page: h.page, text: h.text, label: own?.label, caption: own?.caption }, opts)
      : textBody(h, opts);
  return withBody(block, harness, opts);
}

/** The block of a figure or table attached to a text hit (it inherits the hit's score and protection). */
function attachedBlock(h: SearchHit, m: SearchHit['media'][number], si: number, score: number, prot: boolean, opts: PoolOptions): PoolBlock {
  const f = opts.lookup?.(m.fragmentId);
  const docId = f?.docId ?? h.docId;
  const page = f?.page ?? h.page;
  const section = f?.section ?? h.section;
  const block = {
    fragmentId: m.fragmentId,
    docId,
    kind: m.kind,
    page,
    score,
    protected: prot,
    search: si,
    rank: h.rank,
    via: 'attached' as const,
    anchorId: h.fragmentId,
    text: f?.text ?? m.caption ?? '',
    table: f?.table,
    ocrText: f?.ocrText,
    caption: f?.caption ?? m.caption,
    source: sourceLabel(docId, section, page, opts),
    parts: runnerParts(m.kind, { text: f?.text, caption: f?.caption ?? m.caption, section, title: opts.docTitle?.(docId) ?? docId, page, graph: false }),
  };
  return withBody(block, () => mediaBody(m.fragmentId, m.kind, { docId, page, label: m.label, caption: m.caption, text: f?.text }, opts), opts);
}

/** Merge searches into blocks in first-appearance order, with best scores and protection. */
function collectBlocks(searches: PoolSearch[], opts: PoolOptions): PoolBlock[] {
  const runner = opts.ranking === 'runner';
  const byId = new Map<string, PoolBlock>();
  const order: PoolBlock[] = [];
  const upsert = (b: PoolBlock) => {
    const prev = byId.get(b.fragmentId);
    if (!prev) {
      byId.set(b.fragmentId, b);
      order.push(b);
      return;
    }
    // Across searches a fragment keeps its best score. The harness: protection anywhere protects it.
    // The runner: a later search's protection counts only where it also raises the score.
    if (b.score > prev.score) {
      prev.score = b.score;
      prev.protected ||= b.protected;
    } else if (!runner) prev.protected ||= b.protected;
  };
  searches.forEach((s, si) => {
    const protectedIds = protectedInSearch(s.hits, runner);
    const value = (h: SearchHit) => (runner ? (h.scores.dense ?? 0) : h.score);
    const scoreOf = new Map(s.hits.map((h) => [h.fragmentId, value(h)] as const));
    for (const h of s.hits) {
      const anchorProtected = h.via === 'expansion' && h.anchorId ? protectedIds.has(h.anchorId) : false;
      const score = h.via === 'expansion' && h.anchorId && scoreOf.has(h.anchorId) ? (scoreOf.get(h.anchorId) as number) : value(h);
      const prot = protectedIds.has(h.fragmentId) || anchorProtected;
      upsert(hitBlock(h, si, score, prot, opts));
      // Media attached to a text hit travel with it (inherit score and protection).
      for (const m of h.media) if (m.fragmentId !== h.fragmentId) upsert(attachedBlock(h, m, si, score, prot, opts));
    }
  });
  return order;
}

/** Index of the lowest-scored block passing `eligible` (ties: the later block), or -1. */
function lowestBlock(kept: readonly PoolBlock[], eligible: (b: PoolBlock) => boolean): number {
  let victim = -1;
  for (let i = 0; i < kept.length; i++) if (eligible(kept[i]) && (victim < 0 || kept[i].score <= kept[victim].score)) victim = i;
  return victim;
}

/** Build the evidence pool from every search of the question (in the order they ran). */
export function buildPool(searches: PoolSearch[], opts: PoolOptions = {}): EvidencePool {
  const all = collectBlocks(searches, opts);
  const evicted = zero();
  let kept: PoolBlock[];
  const total = all.reduce((s, b) => s + b.cost, 0);
  if ((opts.kind ?? 'typed') === 'plain') {
    const cap = opts.plainCap ?? 12_000;
    kept = [];
    let used = 0;
    for (const b of all) {
      if (used + b.cost > cap) {
        evicted[b.kind]++;
        continue;
      }
      kept.push(b);
      used += b.cost;
    }
  } else {
    const caps = opts.caps ?? PAPER_CAPS;
    if (total <= caps.total) {
      kept = all.slice();
    } else {
      kept = [];
      const used = zero();
      // One ranked list: every block competes in the same (text) group under the total cap.
      const ranked = opts.kind === 'ranked';
      const group = (k: FragmentKind): FragmentKind => (ranked ? 'text' : k);
      for (const b of all) {
        kept.push(b);
        used[group(b.kind)] += b.cost;
        const cap = ranked ? caps.total : capOf(b.kind, caps);
        while (used[group(b.kind)] > cap) {
          let victim = lowestBlock(kept, (k) => group(k.kind) === group(b.kind) && !k.protected);
          // Everything left of this type is protected: the harness keeps it over the cap, the runner evicts the lowest.
          if (victim < 0 && opts.ranking === 'runner') victim = lowestBlock(kept, (k) => group(k.kind) === group(b.kind));
          if (victim < 0) break;
          used[group(b.kind)] -= kept[victim].cost;
          evicted[kept[victim].kind]++;
          kept.splice(victim, 1);
        }
      }
    }
  }
  // Numbers: the harness numbers the kept blocks 1..n; the runner layout keeps the number a block got when
  // it first appeared (the runner's citation numbers), so later merges never renumber what a reader already
  // cited, and an evicted block leaves a gap.
  const firstSeen = new Map(all.map((b, i) => [b.fragmentId, i + 1] as const));
  const numberOf = new Map<string, number>();
  const lines: string[] = [];
  kept.forEach((b, i) => {
    const n = opts.format === 'runner' ? (firstSeen.get(b.fragmentId) as number) : i + 1;
    numberOf.set(b.fragmentId, n);
    lines.push(`${isMedia(b.kind) ? `[fig ${n}]` : `[${n}]`} ${b.body}`);
  });
  const text = opts.format === 'runner' ? renderRunnerPool(kept, numberOf) : lines.join('\n\n');
  const byKind = zero();
  for (const b of kept) byKind[b.kind]++;
  const trimmed = KINDS.some((k) => evicted[k] > 0);
  return {
    format: opts.format ?? 'harness',
    blocks: kept,
    numberOf,
    text,
    stats: { blocks: kept.length, chars: text.length, trimmed, evicted, byKind, offered: all.length },
  };
}
