/**
 * The knowledge-base view over a hosted knowledge base (`--kb remote:<uuid>`):
 * every tool and retriever of the KnowForge configurations reads it exactly as
 * it reads a local index (lib/pipeline/knowledge-base.ts), each method backed by
 * one endpoint of the hosted API:
 *
 * | view | endpoint |
 * |---|---|
 * | search | POST search |
 * | fragment, neighbours | fragment-context |
 * | documents, title | sources |
 * | toc | book-toc |
 * | tables / queryTable / table | tables / query-table / table |
 * | media / findFigure | list-media / find-figure |
 * | asset | download (the file is kept in a temporary folder for the vision stage) |
 * | overview | overview |
 * | mediaContext | media-context |
 *
 * The hosted search has its own retrieval (vector + keyword + graph
 * expansion) and takes only the documented fields (query, topk,
 * score_fields): a requested mode is not sent. A search restricted to
 * documents or kinds asks for more hits and keeps the first k that qualify,
 * as the local view does for kinds.
 *
 * Per-document packages (MMLongBench-Doc: one package per document): with a
 * package map, `restrictedTo([doc])` is the view of that document's own
 * package; the unrestricted view refuses to search (no package holds them all).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Fragment, MediaAsset, TableData } from '../corpus/types';
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
} from '../pipeline/knowledge-base';
import { docScoresFromHits, type RankedEvidence } from '../pipeline/ranked-evidence';
import { KfError } from '../util/errors';
import { RemoteKbClient } from './client';
import {
  docOf,
  docStem,
  fragmentOf,
  headingsOfToc,
  hitsOfSearch,
  list,
  mediaOf,
  mimeOfName,
  num,
  rowsOf,
  str,
  tableDataOf,
  tableOf,
  type Json,
} from './shapes';

interface SourceDoc {
  id: string;
  name: string;
  title: string;
  pages?: number;
  fragments: number;
}

export interface RemoteKnowledgeBaseOptions {
  /** Only these documents are visible (single-document benchmarks). */
  docIds?: string[];
  /** Where downloaded assets are kept (default: a folder under the OS temp folder). */
  assetDir?: string;
  /** Largest k a search may ask for (default KB_LIMITS.maxTopk). */
  maxTopk?: number;
  /** Document id -> its own package uuid (per-document packages); restrictedTo one of them reads that package. */
  packages?: ReadonlyMap<string, string>;
}

export class RemoteKnowledgeBase implements KnowledgeBase {
  readonly id: string;
  private readonly allowed?: Set<string>;

  constructor(
    readonly client: RemoteKbClient,
    private readonly opts: RemoteKnowledgeBaseOptions = {},
    private readonly shared: { docs?: SourceDoc[]; assets: Map<string, MediaAsset | undefined>; byPackage?: Map<string, RemoteKnowledgeBase> } = {
      assets: new Map(),
    },
  ) {
    this.id = `remote:${client.uuid}`;
    if (opts.docIds) this.allowed = new Set(opts.docIds.map(docStem));
  }

  /** The same knowledge base seen through a document restriction (one question's document). */
  restrictedTo(docIds: string[] | undefined): RemoteKnowledgeBase {
    if (!docIds) return this;
    const own = docIds.length === 1 ? this.opts.packages?.get(docStem(docIds[0])) : undefined;
    if (this.opts.packages && own === undefined)
      throw new KfError(
        'kb_no_package',
        `no package of the package map holds document ${docIds.join(', ')}`,
        'add the document to KF_KB_PACKAGES (the runner layout or {document: uuid}), or use --kb remote:<uuid> for one package',
        { concerns: docIds.join(',') },
      );
    if (own === undefined) return new RemoteKnowledgeBase(this.client, { ...this.opts, docIds }, this.shared);
    const byPackage = (this.shared.byPackage ??= new Map());
    let base = byPackage.get(own);
    if (!base) {
      base = new RemoteKnowledgeBase(this.client.forPackage(own), { assetDir: this.opts.assetDir, maxTopk: this.opts.maxTopk });
      byPackage.set(own, base);
    }
    return base.restrictedTo(docIds);
  }

  /** How many per-document packages the view routes to (0: one package). */
  packageCount(): number {
    return this.opts.packages?.size ?? 0;
  }

  private visible(docId: string): boolean {
    return !this.allowed || this.allowed.has(docStem(docId));
  }

  /** The documents the server lists (fetched once). */
  private sources(): SourceDoc[] {
    if (!this.shared.docs) {
      this.shared.docs = list(this.client.getSync('sources').sources).map((s) => {
        const name = str(s.name) ?? '';
        return { id: docStem(name), name, title: str(s.title) ?? name, pages: num(s.pages), fragments: num(s.fragments) ?? 0 };
      });
    }
    return this.shared.docs;
  }

  /** How many documents the view sees (not capped as the listing is). */
  documentCount(): number {
    return this.sources().filter((d) => this.visible(d.id)).length;
  }

  /** root node id -> document id (media hits name their document this way). */
  private rootDocs(): Map<string, string> {
    const out = new Map<string, string>();
    for (const s of list(this.client.getSync('sources').sources)) if (str(s.root_node_id)) out.set(str(s.root_node_id)!, docStem(str(s.name) ?? ''));
    return out;
  }

  private nameOf(docId: string): string | undefined {
    return this.sources().find((d) => d.id === docStem(docId))?.name;
  }

  async search(query: string, opts: KbSearchOptions = {}): Promise<RankedEvidence> {
    const t0 = Date.now();
    const max = Math.max(this.opts.maxTopk ?? KB_LIMITS.maxTopk, KB_LIMITS.maxTopk);
    const k = Math.min(Math.max(1, Math.floor(opts.k ?? KB_LIMITS.searchTopk)), max);
    const docs = opts.docIds ? new Set(opts.docIds.map(docStem)) : this.allowed;
    if (this.opts.packages && !docs)
      throw new KfError(
        'kb_no_package',
        `${this.id}: one package per document, and the search names no document`,
        "search a question's view (restrictedTo its document)",
        {
          concerns: this.id,
        },
      );
    const filtered = !!opts.types || !!docs;
    const topk = filtered ? Math.min(k * 4, max * 4) : k;
    // Only the fields the API documents (the runner's client sends these three).
    const data = await this.client.post('search', { query, topk, score_fields: true });
    let hits = hitsOfSearch(data, this.rootDocs());
    if (filtered) {
      hits = hits
        .filter((h) => (!opts.types || opts.types.includes(h.kind)) && (!docs || docs.has(h.docId)))
        .slice(0, k)
        .map((h, i) => ({ ...h, rank: i + 1 }));
    }
    return { query, retriever: 'remote', hits, docs: docScoresFromHits(hits), timings: { totalMs: Date.now() - t0 } };
  }

  private context(id: string, window: number): Json[] {
    const d = this.client.getSync('fragment-context', { fragment_id: id, window });
    return d.error ? [] : list(d.context);
  }

  fragment(id: string): Fragment | undefined {
    const anchor = this.context(id, 1).find((e) => e.anchor === true);
    if (!anchor) return undefined;
    const f = fragmentOf(anchor, this.rootDocs());
    return this.visible(f.docId) ? f : undefined;
  }

  neighbours(id: string, window = 1): Fragment[] {
    if (!this.fragment(id)) return [];
    const roots = this.rootDocs();
    return this.context(id, Math.max(0, Math.floor(window)))
      .filter((e) => e.anchor !== true)
      .map((e) => fragmentOf(e, roots));
  }

  documents(keyword?: string): KbDocument[] {
    const kw = keyword?.trim().toLowerCase();
    return this.sources()
      .filter((d) => this.visible(d.id) && (!kw || d.title.toLowerCase().includes(kw) || d.id.toLowerCase().includes(kw)))
      .slice(0, KB_LIMITS.listBooks)
      .map((d) => ({ id: d.id, title: d.title, pages: d.pages, fragments: d.fragments }));
  }

  title(docId: string): string | undefined {
    return this.visible(docId) ? this.sources().find((d) => d.id === docStem(docId))?.title : undefined;
  }

  toc(docId: string): KbHeading[] {
    const name = this.visible(docId) ? this.nameOf(docId) : undefined;
    if (!name) return [];
    const d = this.client.getSync('book-toc', { book: name });
    return d.error || d.candidates ? [] : headingsOfToc(d).slice(0, KB_LIMITS.tocHeadings);
  }

  tables(docId?: string): KbTable[] {
    const roots = this.rootDocs();
    return list(this.client.getSync('tables').tables)
      .map((t) => tableOf(t, roots))
      .filter((t) => this.visible(t.docId) && (!docId || t.docId === docStem(docId)));
  }

  queryTable(item: string, tableId?: string): { table: KbTable; header: string[]; rows: string[][] }[] {
    const known = new Map(this.tables().map((t) => [t.fragmentId, t]));
    const d = this.client.getSync('query-table', { item, table_id: tableId });
    const out: { table: KbTable; header: string[]; rows: string[][] }[] = [];
    for (const r of list(d.results)) {
      const table = known.get(str(r.table_id) ?? '');
      if (!table) continue; // a table of a document outside the view
      const { header, rows } = rowsOf(r);
      if (rows.length) out.push({ table, header, rows: rows.slice(0, KB_LIMITS.tableRows) });
    }
    return out;
  }

  table(tableId: string): TableData | undefined {
    if (!this.tables().some((t) => t.fragmentId === tableId)) return undefined;
    return tableDataOf(this.client.getSync('table', { table_id: tableId }));
  }

  media(filter: KbMediaFilter = {}): KbMedia[] {
    const docs = filter.doc ? [filter.doc] : this.documents().map((d) => d.id);
    const roots = this.rootDocs();
    const out: KbMedia[] = [];
    // One listing per document: the hosted endpoint lists one book at a time.
    for (const doc of docs) {
      const name = this.visible(doc) ? this.nameOf(doc) : undefined;
      if (!name) continue;
      const d = this.client.getSync('list-media', { book: name, kind: filter.kind ?? 'all', page: filter.page, heading: filter.heading });
      if (d.error) continue;
      for (const it of list(d.items)) out.push(mediaOf(it, roots, docStem(name)));
      if (out.length >= KB_LIMITS.mediaList) break;
    }
    return out.slice(0, KB_LIMITS.mediaList);
  }

  findFigure(label: string, docId?: string): KbMedia[] {
    const docs = docId ? [docId] : this.documents().map((d) => d.id);
    const roots = this.rootDocs();
    const out: KbMedia[] = [];
    for (const doc of docs) {
      const name = this.visible(doc) ? this.nameOf(doc) : undefined;
      if (!name) continue;
      const d = this.client.getSync('find-figure', { label, book: name });
      if (!d.error) for (const it of list(d.media)) out.push(mediaOf(it, roots, docStem(name)));
    }
    return out.slice(0, KB_LIMITS.mediaList);
  }

  /** The fragment's stored file, downloaded once into the asset folder. */
  asset(fragmentId: string): MediaAsset | undefined {
    if (this.shared.assets.has(fragmentId)) return this.shared.assets.get(fragmentId);
    const f = this.fragment(fragmentId);
    let asset: MediaAsset | undefined;
    if (f && (f.kind === 'image' || f.kind === 'table')) {
      const { bytes, mime, name } = this.client.downloadSync(fragmentId);
      const dir = this.opts.assetDir ?? path.join(os.tmpdir(), 'kf-remote-kb', this.client.uuid.replace(/[^\w.-]/g, '_'));
      fs.mkdirSync(dir, { recursive: true });
      const ext = path.extname(name) || `.${(mime.split('/')[1] ?? 'bin').replace(/[^\w]/g, '')}`;
      const file = path.join(dir, `${fragmentId.replace(/[^\w.-]/g, '_')}${ext}`);
      fs.writeFileSync(file, bytes);
      asset = { path: file, mime: mime === 'application/octet-stream' ? mimeOfName(file) : mime, origin: 'file' };
    }
    this.shared.assets.set(fragmentId, asset);
    return asset;
  }

  /** The package's overview (its name, goal and modules: the runner's persona reads them). */
  overview(): KbOverview {
    const d = this.client.overview();
    const modules = list(d.modules)
      .map((m) => str(m.title) ?? '')
      .filter(Boolean);
    return {
      name: str(d.name) ?? str(this.client.card().name) ?? '',
      goal: str(d.goal) ?? '',
      modules,
      documents: num(d.documents) ?? this.documentCount(),
      fragments: num(d.fragments) ?? 0,
    };
  }

  /** A figure or table with its page, as the server's media-context gives it. */
  mediaContext(fragmentId: string): KbMediaContext | undefined {
    const d = this.client.mediaContext(fragmentId);
    if (d.error || !str(d.fragment_id)) return undefined;
    const docId = docOf(d, this.rootDocs());
    if (docId && !this.visible(docId)) return undefined;
    const strings = (v: unknown) => (Array.isArray(v) ? v.map((x) => String(x)) : []);
    return {
      fragmentId: str(d.fragment_id)!,
      docId,
      kind: d.kind === 'table' ? 'table' : 'image',
      page: num(d.page),
      desc: str(d.desc) ?? '',
      ...(str(d.label) ? { label: str(d.label) } : {}),
      ...(str(d.caption) ? { caption: str(d.caption) } : {}),
      captions: strings(d.captions),
      pageText: str(d.page_text) ?? '',
      siblings: list(d.siblings).map((x) => ({
        fragmentId: str(x.fragment_id) ?? '',
        kind: x.kind === 'table' ? 'table' : 'image',
        page: num(x.page),
        desc: str(x.desc) ?? '',
      })),
    };
  }
}
