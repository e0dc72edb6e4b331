/**
 * The knowledge-base view over the SearchEngine (the default implementation of
 * lib/pipeline/knowledge-base.ts). Every tool and retriever reads the index
 * through it; the spec's limits come from KB_LIMITS. Other retrieval modes
 * (a graph retriever such as DualG-MRAG) plug in as `extraModes`: a search
 * with `mode: 'dualg'` is delegated to it, everything else reads the engine.
 */
import type { Fragment, FragmentKind, MediaAsset, TableData } from '../corpus/types';
import {
  KB_LIMITS,
  type KbDocument,
  type KbHeading,
  type KbMedia,
  type KbMediaContext,
  type KbMediaFilter,
  type KbOverview,
  type KbSearchOptions,
  type KbTable,
  type KnowledgeBase,
} from './knowledge-base';
import { docScoresFromHits, type RankedEvidence } from './ranked-evidence';
import { mediaContextOf } from './media-context';
import { overviewOf } from './kb-overview';
import { KfError } from '../util/errors';
import type { SearchEngine } from '../index/engine';
import { RETRIEVAL_MODES, type RetrievalMode, type SearchOptions } from '../index/types';

const ENGINE_MODES: readonly string[] = RETRIEVAL_MODES;
const MEDIA_KINDS: readonly FragmentKind[] = ['image', 'table'];

/** A retriever other than the engine's own modes, searched through the same view. */
export type ModeRetriever = (query: string, opts: KbSearchOptions & { k: number }, kb: KnowledgeBase) => Promise<RankedEvidence>;

export interface EngineKnowledgeBaseOptions {
  id: string;
  /** What `overview()` names a view of several documents (one document is named by its title); default "knowledge base". */
  name?: string;
  docTitle?: (docId: string) => string | undefined;
  /** Documents the view is restricted to (single-document benchmarks): searches and listings see only these. */
  docIds?: string[];
  /** Extra search modes by name (e.g. 'dualg'). */
  extraModes?: Record<string, ModeRetriever>;
  /** Settings forced onto every search (an experiment's index.search: e.g. mode = "dense" for a whole run). */
  forced?: Pick<SearchOptions, 'mode' | 'fusion' | 'withContext'>;
  /** Largest k a search may ask for (default KB_LIMITS.maxTopk; evaluations at large cut-offs raise it). */
  maxTopk?: number;
}

function clampK(k: number | undefined, max: number = KB_LIMITS.maxTopk): number {
  const v = k ?? KB_LIMITS.searchTopk;
  if (!Number.isFinite(v) || v < 1) return KB_LIMITS.searchTopk;
  return Math.min(Math.floor(v), Math.max(max, KB_LIMITS.maxTopk));
}

/** "Figure 3", "fig. 3", "FIG 3" -> "figure 3"; "Tab. 2" -> "table 2". */
export function normaliseLabel(label: string): string {
  return label
    .toLowerCase()
    .replace(/\bfig(?:ure)?s?\.?\s*/g, 'figure ')
    .replace(/\btab(?:le)?s?\.?\s*/g, 'table ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

export class EngineKnowledgeBase implements KnowledgeBase {
  readonly id: string;
  private readonly allowed?: Set<string>;

  constructor(
    private readonly engine: SearchEngine,
    private readonly opts: EngineKnowledgeBaseOptions,
  ) {
    this.id = opts.id;
    if (opts.docIds) this.allowed = new Set(opts.docIds);
  }

  /** The same index seen through a document restriction (one question's document). */
  restrictedTo(docIds: string[] | undefined): EngineKnowledgeBase {
    if (!docIds) return this;
    return new EngineKnowledgeBase(this.engine, { ...this.opts, docIds });
  }

  private visible(docId: string): boolean {
    return !this.allowed || this.allowed.has(docId);
  }

  async search(query: string, opts: KbSearchOptions = {}): Promise<RankedEvidence> {
    const k = clampK(opts.k, this.opts.maxTopk);
    const forced = this.opts.forced ?? {};
    const mode = forced.mode ?? opts.mode ?? 'hybrid+graph';
    const docIds = opts.docIds ?? (this.allowed ? [...this.allowed] : undefined);
    const extra = this.opts.extraModes?.[mode];
    if (extra) return extra(query, { ...opts, k, docIds }, this);
    if (!ENGINE_MODES.includes(mode)) {
      const known = [...ENGINE_MODES, ...Object.keys(this.opts.extraModes ?? {})];
      throw new KfError('unknown_mode', `knowledge base ${this.id}: no retrieval mode "${mode}"`, `use one of ${known.join(', ')}`, { concerns: mode });
    }
    // Type filters are applied after ranking, so ask for more candidates first.
    const want = opts.types ? Math.min(k * 4, KB_LIMITS.maxTopk * 4) : k;
    const r = await this.engine.search(query, { topk: want, mode: mode as RetrievalMode, docIds, queryVector: opts.queryVector, ...forced });
    // Without a type filter the engine's list is kept as it is: the k best plus, in hybrid+graph, the expansion
    // hits it attaches to its anchors (the one-shot baselines pool them); a filter keeps the k best of that kind.
    const hits = opts.types
      ? r.hits
          .filter((h) => opts.types!.includes(h.kind))
          .slice(0, k)
          .map((h, i) => ({ ...h, rank: i + 1 }))
      : r.hits;
    return { query, retriever: mode, hits, docs: docScoresFromHits(hits), timings: { ...r.timings, totalMs: r.timings.roundMs + r.timings.embedMs } };
  }

  fragment(id: string): Fragment | undefined {
    const f = this.engine.fragment(id);
    return f && this.visible(f.docId) ? f : undefined;
  }

  neighbours(id: string, window = 1): Fragment[] {
    const f = this.fragment(id);
    if (!f) return [];
    const all = this.engine.fragmentsOf(f.docId);
    const at = all.findIndex((x) => x.id === id);
    const w = Math.max(0, Math.floor(window));
    return all.slice(Math.max(0, at - w), at + w + 1).filter((x) => x.id !== id);
  }

  private docIds(): string[] {
    return this.engine.documents().filter((d) => this.visible(d));
  }

  title(docId: string): string | undefined {
    return this.opts.docTitle?.(docId) ?? (this.engine.fragmentsOf(docId).length ? docId : undefined);
  }

  documents(keyword?: string): KbDocument[] {
    const kw = keyword?.trim().toLowerCase();
    const out: KbDocument[] = [];
    for (const id of this.docIds()) {
      const title = this.title(id) ?? id;
      if (kw && !title.toLowerCase().includes(kw) && !id.toLowerCase().includes(kw)) continue;
      const frags = this.engine.fragmentsOf(id);
      const pages = frags.reduce((m, f) => Math.max(m, f.page ?? 0), 0);
      out.push({ id, title, pages: pages || undefined, fragments: frags.length });
      if (out.length >= KB_LIMITS.listBooks) break;
    }
    return out;
  }

  toc(docId: string): KbHeading[] {
    if (!this.visible(docId)) return [];
    const out: KbHeading[] = [];
    let last = '';
    for (const f of this.engine.fragmentsOf(docId)) {
      const key = f.section.join(' > ');
      if (!f.section.length || key === last) continue;
      last = key;
      out.push({ path: f.section, page: f.page, fragmentId: f.id });
      if (out.length >= KB_LIMITS.tocHeadings) break;
    }
    return out;
  }

  private tableInfo(f: Fragment): KbTable {
    return {
      fragmentId: f.id,
      docId: f.docId,
      page: f.page,
      label: f.label,
      caption: f.caption,
      header: f.table?.header ?? [],
      rowCount: f.table?.rowCount ?? f.table?.rows.length ?? 0,
    };
  }

  tables(docId?: string): KbTable[] {
    const docs = docId ? (this.visible(docId) ? [docId] : []) : this.docIds();
    const out: KbTable[] = [];
    for (const d of docs) for (const f of this.engine.fragmentsOf(d)) if (f.kind === 'table' && f.table) out.push(this.tableInfo(f));
    return out;
  }

  table(tableId: string): TableData | undefined {
    return this.fragment(tableId)?.table;
  }

  queryTable(item: string, tableId?: string): { table: KbTable; header: string[]; rows: string[][] }[] {
    const needle = item.trim().toLowerCase();
    const tables = tableId ? this.tables().filter((t) => t.fragmentId === tableId) : this.tables();
    const out: { table: KbTable; header: string[]; rows: string[][] }[] = [];
    for (const t of tables) {
      const data = this.table(t.fragmentId)!;
      const rows = data.rows.filter((r) => !needle || r.some((c) => c.toLowerCase().includes(needle))).slice(0, KB_LIMITS.tableRows);
      if (rows.length) out.push({ table: t, header: data.header, rows });
    }
    return out;
  }

  private mediaInfo(f: Fragment): KbMedia {
    return { fragmentId: f.id, docId: f.docId, kind: f.kind, page: f.page, label: f.label, caption: f.caption, section: f.section, asset: f.media };
  }

  media(filter: KbMediaFilter = {}): KbMedia[] {
    const docs = filter.doc ? (this.visible(filter.doc) ? [filter.doc] : []) : this.docIds();
    const heading = filter.heading?.toLowerCase();
    const out: KbMedia[] = [];
    for (const d of docs) {
      for (const f of this.engine.fragmentsOf(d)) {
        if (!MEDIA_KINDS.includes(f.kind) || (filter.kind && f.kind !== filter.kind)) continue;
        if (filter.page !== undefined && f.page !== filter.page) continue;
        if (heading && !f.section.some((s) => s.toLowerCase().includes(heading))) continue;
        out.push(this.mediaInfo(f));
        if (out.length >= KB_LIMITS.mediaList) return out;
      }
    }
    return out;
  }

  findFigure(label: string, docId?: string): KbMedia[] {
    const want = normaliseLabel(label);
    if (!want) return [];
    const docs = docId ? [docId] : this.docIds();
    const out: KbMedia[] = [];
    for (const d of docs) {
      if (!this.visible(d)) continue;
      for (const f of this.engine.fragmentsOf(d)) {
        if (f.label && normaliseLabel(f.label) === want) out.push(this.mediaInfo(f));
      }
    }
    return out.slice(0, KB_LIMITS.mediaList);
  }

  asset(fragmentId: string): MediaAsset | undefined {
    return this.fragment(fragmentId)?.media;
  }

  overview(): KbOverview {
    const docs = this.docIds().map((id) => ({ id, title: this.title(id) ?? id, fragments: this.engine.fragmentsOf(id) }));
    return overviewOf(docs, this.opts.name);
  }

  mediaContext(fragmentId: string): KbMediaContext | undefined {
    const f = this.fragment(fragmentId);
    return f ? mediaContextOf(f, this.engine.fragmentsOf(f.docId)) : undefined;
  }
}
