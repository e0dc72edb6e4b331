/**
 * Runner mode's evidence: tool results written as the released runner writes them (its material
 * builder: numbered text blocks with their neighbours and figure lines, a search's figure lines, plain
 * blocks of the reading tools) and the pool the synthesizer reads (blocks split into units, joined).
 * The wording comes from the user's checkout (texts.ts); the logic is this project's own.
 */
import { fieldsOf, type LitPart } from './python-literals';
import { fill, missing, offsetOf, runAfter, type RunnerSource, type RunnerTexts } from './texts';
import type { Json } from './kb-api';

interface SearchTexts {
  material: LitPart[];
  graphTag: string;
  neighbour: LitPart[];
  csvContext: LitPart[];
  tableNoImage: LitPart[];
  idNote: LitPart[];
  figure: LitPart[];
  hitIdNote: LitPart[];
  hitCsv: LitPart[];
  hitFigure: LitPart[];
  hitHeader: string;
  pageTag: LitPart[];
  noCaption: string;
  tableCaption: LitPart[];
  tableNoCaption: string;
  nothingNew: string;
  weak: string;
  exampleHeader: string;
  /** The pool's pattern of a figure line's fragment id (a Python regex, used as a JavaScript one). */
  fidPattern: string;
}

function byPredicate(s: RunnerSource, what: string, ok: (f: string[]) => boolean, nth = 0): LitPart[] {
  const hits = s.runs.filter((r) => ok(fieldsOf(r.parts)));
  if (!hits[nth]) throw missing(s.file, what);
  return hits[nth].parts;
}

const plain = (p: LitPart[]) => p.map((x) => (typeof x === 'string' ? x : '')).join('');

function searchTexts(m: RunnerSource): SearchTexts {
  const eq =
    (...xs: string[]) =>
    (f: string[]) =>
      f.length === xs.length && f.every((x, i) => x === xs[i]);
  const addSearch = offsetOf(m, /def add_search\(/);
  const searchMat = offsetOf(m, /def search_mat\(/);
  return {
    material: byPredicate(m, 'the material block', (f) => f.length === 5 && f[0] === 'cid' && f[1] === 'cid'),
    graphTag: plain(runAfter(m, /tag\s*=\s*/, addSearch).parts),
    neighbour: byPredicate(m, 'the neighbour line', eq('seg')),
    csvContext: byPredicate(m, 'the data-table line', eq('caption'), 1),
    tableNoImage: byPredicate(m, 'the table-without-image line', eq('caption'), 2),
    idNote: byPredicate(m, 'the id note', eq('cfid')),
    figure: byPredicate(m, 'the attached figure line', (f) => f.length === 4 && f[0] === 'emitted[0]' && f[2] === 'cfid_note'),
    hitIdNote: byPredicate(m, 'the hit id note', eq('fid')),
    hitCsv: byPredicate(m, 'the hit data-table line', eq('caption'), 3),
    hitFigure: byPredicate(m, 'the hit figure line', (f) => f.length === 4 && f[0] === 'emitted[0]' && f[2] === 'fid_note'),
    hitHeader: plain(runAfter(m, /if hit_lines:\s*\n\s*lines\.append\(/, addSearch).parts),
    pageTag: byPredicate(m, 'the page tag', eq('m.group(1)')),
    noCaption: plain(runAfter(m, /kind == "image":[\s\S]*?caption or /).parts),
    tableCaption: byPredicate(m, 'the table caption', eq('caption'), 0),
    tableNoCaption: plain(runAfter(m, /（表格）" if caption else |if caption else /, offsetOf(m, /def _emit_media/)).parts),
    nothingNew: plain(runAfter(m, /if not block:\s*\n\s*return /, searchMat).parts),
    weak: plain(runAfter(m, /return \(/, searchMat).parts),
    exampleHeader: plain(runAfter(m, /if ex_lines:\s*\n\s*lines\.append\(/, addSearch).parts),
    fidPattern: plain(runAfter(m, /_FID_RE\s*=\s*re\.compile\(/).parts),
  };
}

const squash = (s: unknown) =>
  String(s ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');

/** The runner's builder: citations, images, blocks (each with the fragment ids it came from). */
export class RunnerMaterials {
  readonly citations = new Map<string, Json>();
  readonly images = new Map<string, { path: string; caption: string }>();
  readonly blocks: string[] = [];
  readonly blockFids = new Map<number, string[]>();
  private readonly seenFrag = new Set<string>();
  private readonly seenPath = new Set<string>();
  readonly s: SearchTexts;

  constructor(readonly texts: RunnerTexts) {
    this.s = searchTexts(texts.materials);
  }

  pageTag(path: string): string {
    const m = /page_(\d+)_/.exec(path.split('/').pop() ?? '');
    return m ? fill(this.s.pageTag, { 'm.group(1)': m[1] }) : '';
  }

  emitImage(path: string, caption: string): string | undefined {
    if (!path || this.seenPath.has(path)) return undefined;
    this.seenPath.add(path);
    const n = `图${this.images.size + 1}`;
    this.images.set(n, { path, caption });
    return n;
  }

  private emitMedia(kind: string, path: string, ext: string, caption: string): [string, string] | undefined {
    ext = ext.toLowerCase();
    if (kind === 'image') {
      const n = this.emitImage(path, caption);
      return n ? [n, caption || this.s.noCaption] : undefined;
    }
    if (kind === 'table' && ext === 'pdf') {
      const n = this.emitImage(path, caption ? fill(this.s.tableCaption, { caption }) : this.s.tableNoCaption);
      if (n) return [n, caption || this.s.tableNoCaption];
    }
    return undefined;
  }

  private resultBlock(r: Json): string | undefined {
    const s = this.s;
    const frag = String(r.fragment_id ?? '');
    if (frag && this.seenFrag.has(frag)) return undefined;
    if (frag) this.seenFrag.add(frag);
    const cid = String(this.citations.size + 1);
    const label = String(r.section_title || r.source_file || '').trim();
    this.citations.set(cid, { fragment_id: r.fragment_id, source_file: r.source_file, label });
    const text = [...squash(r.text)].slice(0, 700).join('');
    const block = [
      fill(s.material, { cid, label, "r.get('source_file')": r.source_file ? String(r.source_file) : '', tag: r.from_graph ? s.graphTag : '', text }),
    ];
    for (const c of (r.context ?? []) as Json[]) {
      if (c.anchor) continue;
      const kind = c.kind;
      const caption = [...squash(c.caption)].slice(0, 160).join('');
      const path = String(c.path || '');
      const ext = String(c.ext || '').toLowerCase();
      if (kind === 'text') {
        const seg = squash(c.text);
        if (seg) block.push(fill(s.neighbour, { seg }));
      } else if (kind === 'table' && ext === 'csv') {
        if (caption) block.push(fill(s.csvContext, { caption }));
      } else {
        const emitted = this.emitMedia(kind, path, ext, caption);
        if (emitted) {
          const cfid = String(c.fragment_id || '');
          const cfidNote = cfid ? fill(s.idNote, { cfid }) : '';
          block.push(fill(s.figure, { 'emitted[0]': emitted[0], 'self._page_tag(path)': this.pageTag(path), cfid_note: cfidNote, 'emitted[1]': emitted[1] }));
        } else if (kind === 'table' && caption) block.push(fill(s.tableNoImage, { caption }));
      }
    }
    return block.join('\n');
  }

  /** A search's listing added as one block ('' when nothing new). */
  addSearch(data: Json): string {
    const s = this.s;
    const lines: string[] = [];
    for (const r of (data.results ?? []) as Json[]) {
      const b = this.resultBlock(r);
      if (b !== undefined) lines.push(b);
    }
    const hitLines: string[] = [];
    for (const m of [...(data.images ?? []), ...(data.tables ?? [])] as Json[]) {
      const caption = [...squash(m.caption)].slice(0, 160).join('');
      const ext = String(m.ext || '').toLowerCase();
      if (m.kind === 'table' && ext === 'csv') {
        if (caption) hitLines.push(fill(s.hitCsv, { caption }));
        continue;
      }
      const emitted = this.emitMedia(m.kind, String(m.path || ''), ext, caption);
      if (emitted) {
        const fid = String(m.fragment_id || '');
        hitLines.push(
          fill(s.hitFigure, {
            'emitted[0]': emitted[0],
            "self._page_tag(m.get('path') or '')": this.pageTag(String(m.path || '')),
            fid_note: fid ? fill(s.hitIdNote, { fid }) : '',
            'emitted[1]': emitted[1],
          }),
        );
      }
    }
    if (hitLines.length) lines.push(`${s.hitHeader}${hitLines.join('\n')}`);
    if (!lines.length) return '';
    const text = lines.join('\n\n');
    this.blocks.push(text);
    return text;
  }

  addPlain(text: string, fids: unknown[] = []): string {
    if (text) {
      this.blocks.push(text);
      this.blockFids.set(this.blocks.length - 1, fids.filter(Boolean).map(String));
    }
    return text;
  }

  hasContent(): boolean {
    return this.blocks.length > 0;
  }
}

/** The highest score of a search's hits (the weak-relevance gate reads it). */
function topScore(data: Json): number {
  const all = ['results', 'images', 'tables', 'examples'].flatMap((k) => ((data[k] ?? []) as Json[]).map((x) => Number(x.score ?? 0) || 0));
  return all.length ? Math.max(...all) : 0;
}

export const RELEVANCE_GATE = 2.0;

/** A search result as the agent reads it (and the block it adds). */
export function searchListing(b: RunnerMaterials, data: Json): string {
  const top = topScore(data);
  const block = b.addSearch(data);
  if (!block) return b.s.nothingNew;
  return (top < RELEVANCE_GATE ? b.s.weak : '') + block;
}
