/**
 * What a build writes next to the index for a person to read:
 * - the BUILD REPORT: every document with its status (ok | error | duplicate |
 *   skipped), every page accounted for (text layer | OCR | empty | error),
 *   fragments by kind, knowledge points, and every issue with its reason;
 * - the COST LEDGER, shaped like the paper's Appendix D table (documents,
 *   Markdown/text characters, images, OCR pages, embeddings, model tokens by
 *   stage group, wall time), for the whole index (summed over the per-document
 *   work, which survives incremental builds) and for this build alone, also as a
 *   small Markdown table.
 *
 * Stage groups (Appendix D): "pre-processing" = file classification and
 * heading-tree extraction (done by rules in lib/corpus here: always 0 tokens);
 * "extraction text" = knowledge points + relation typing (stages 'extraction',
 * 'relations'); "extraction multimodal" = image/table description (stages
 * 'caption', 'vision').
 */
import type { FragmentKind, IngestIssue } from '../corpus/types';
import type { StageUsage } from './knowledge-points';

export type DocumentStatus = 'ok' | 'error' | 'duplicate' | 'skipped';

export interface PageCounts {
  total: number;
  text: number;
  ocr: number;
  empty: number;
  error: number;
}

export type KindCounts = Record<FragmentKind, number>;

export interface DocumentReport {
  /** Document id (path without extension, or the passage id). */
  id: string;
  /** Corpus-relative path, or `passage:<id>`. */
  source: string;
  title?: string;
  format?: string;
  status: DocumentStatus;
  /** Why the document is not (fully) in the index: for error, duplicate and skipped. */
  reason?: string;
  duplicateOf?: string;
  /** An error on a document that was indexed before: its previous version stays in the index. */
  keptPrevious?: boolean;
  /** What this build did with it: processed now, reused from the checkpoint store, or none (not indexed). */
  work: 'processed' | 'reused' | 'none';
  /** Whether it is new, changed or unchanged since the previous generation. */
  change: 'added' | 'changed' | 'unchanged';
  sha256?: string;
  pages?: PageCounts;
  /** Pages by their number and source (only for paged documents). */
  pageSources?: { page: number; source: string; chars: number; error?: string }[];
  fragments: KindCounts;
  points: number;
  issues: { severity: 'error' | 'warning'; code: string; message: string; page?: number }[];
}

/** Token totals of one Appendix-D stage group. */
export interface TokenCounts {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  total: number;
}

export interface LedgerCounts {
  documents: number;
  /** Source bytes of the indexed documents. */
  sourceBytes: number;
  /** Characters of retrieval text (the Markdown/text the fragments carry). */
  markdownChars: number;
  images: number;
  tables: number;
  ocrPages: number;
  pages: number;
  fragments: number;
  points: number;
  /** Vectors computed (fragments + knowledge points). */
  embeddings: number;
  tokens: {
    preprocessing: TokenCounts;
    extractionText: TokenCounts;
    extractionMultimodal: TokenCounts;
    total: TokenCounts;
  };
  /** Wall-clock seconds: of this build, or (index row) summed over every build of the index. */
  wallSeconds: number;
  /** Seconds of per-document work (ingest, describe, points, embedding), summed over documents (overlaps when documents run in parallel). */
  documentSeconds: number;
}

export interface CostLedger {
  /** Name shown in the table's first column (benchmark or corpus folder name). */
  corpus: string;
  /** Source formats with their document counts, e.g. {pdf: 62}. */
  formats: Record<string, number>;
  /** Per stage group: the backend that produced the tokens ('offline' = no model). */
  backends: Record<string, string>;
  /** The whole index as it stands (every document's work, whenever it was done). */
  index: LedgerCounts;
  /** Only what this build computed (an incremental build computes the difference). */
  thisBuild: LedgerCounts;
  /** The paper's figures for comparison, when the corpus is one of its benchmarks. */
  paper?: Record<string, string | number>;
}

export interface BuildSummary {
  documents: number;
  ok: number;
  error: number;
  duplicate: number;
  skipped: number;
  added: number;
  changed: number;
  unchanged: number;
  removed: number;
  processed: number;
  reused: number;
  pages: PageCounts;
  fragments: KindCounts & { total: number };
  points: number;
  relations: { recalled: number; typed: number; pointEdges: number; fragmentEdges: number };
  issues: { errors: number; warnings: number };
}

export interface BuildReport {
  kind: 'kf-build-report';
  version: 1;
  generation: string;
  previousGeneration?: string;
  startedAt: string;
  finishedAt: string;
  outDir: string;
  corpus: { kind: 'directory' | 'passages'; path?: string; name: string };
  /** True when this build resumed work an interrupted build had checkpointed. */
  resumed: boolean;
  summary: BuildSummary;
  documents: DocumentReport[];
  /** Documents of the previous generation that are gone from the corpus. */
  removed: string[];
  /** Issues of the index-wide steps (knowledge points, relation typing, fitting, saving). */
  indexIssues: { step: string; code: string; message: string }[];
  ledger: CostLedger;
}

export function emptyKinds(): KindCounts {
  return { text: 0, image: 0, table: 0, example: 0 };
}

export function emptyPages(): PageCounts {
  return { total: 0, text: 0, ocr: 0, empty: 0, error: 0 };
}

export function tokenCounts(...usages: (StageUsage | undefined)[]): TokenCounts {
  const t: TokenCounts = { calls: 0, promptTokens: 0, completionTokens: 0, total: 0 };
  for (const u of usages) {
    if (!u) continue;
    t.calls += u.calls;
    t.promptTokens += u.promptTokens;
    t.completionTokens += u.completionTokens;
  }
  t.total = t.promptTokens + t.completionTokens;
  return t;
}

export function emptyLedgerCounts(): LedgerCounts {
  const z = tokenCounts();
  return {
    documents: 0,
    sourceBytes: 0,
    markdownChars: 0,
    images: 0,
    tables: 0,
    ocrPages: 0,
    pages: 0,
    fragments: 0,
    points: 0,
    embeddings: 0,
    tokens: { preprocessing: { ...z }, extractionText: { ...z }, extractionMultimodal: { ...z }, total: { ...z } },
    wallSeconds: 0,
    documentSeconds: 0,
  };
}

function sumTokens(a: TokenCounts, b: TokenCounts): TokenCounts {
  const t = { calls: a.calls + b.calls, promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens, total: 0 };
  t.total = t.promptTokens + t.completionTokens;
  return t;
}

/** Recompute the total token group from the three stage groups. */
export function finishTokens(c: LedgerCounts): LedgerCounts {
  c.tokens.total = sumTokens(sumTokens(c.tokens.preprocessing, c.tokens.extractionText), c.tokens.extractionMultimodal);
  return c;
}

export function addLedgerCounts(into: LedgerCounts, x: LedgerCounts): LedgerCounts {
  for (const k of [
    'documents',
    'sourceBytes',
    'markdownChars',
    'images',
    'tables',
    'ocrPages',
    'pages',
    'fragments',
    'points',
    'embeddings',
    'wallSeconds',
    'documentSeconds',
  ] as const)
    into[k] += x[k];
  into.tokens.preprocessing = sumTokens(into.tokens.preprocessing, x.tokens.preprocessing);
  into.tokens.extractionText = sumTokens(into.tokens.extractionText, x.tokens.extractionText);
  into.tokens.extractionMultimodal = sumTokens(into.tokens.extractionMultimodal, x.tokens.extractionMultimodal);
  return finishTokens(into);
}

/** Appendix D (Table 9) of the paper, for the corpora it reports. */
export const PAPER_APPENDIX_D: Record<string, Record<string, string | number>> = {
  m3docvqa: {
    source: '1.02 GB PDF',
    docs: 3368,
    markdownChars: '57.7M',
    images: 12556,
    ocrPages: 17223,
    embeddings: 201957,
    preprocessingTokens: '44.3M',
    extractionTokens: '72.1M / 21.7M',
    totalTokens: '138M',
    wall: 'about 12 h',
  },
  'mmlongbench-doc': {
    source: '666 MB PDF',
    docs: 135,
    markdownChars: '11.8M',
    images: 7189,
    ocrPages: 3657,
    embeddings: 34234,
    preprocessingTokens: '8.4M',
    extractionTokens: '6.7M / 5.2M',
    totalTokens: '20M',
    wall: 'median 120 s per document (6.6 h)',
  },
  'multihop-rag': {
    source: '5 MB Markdown',
    docs: 609,
    markdownChars: '5.2M',
    images: 0,
    ocrPages: 0,
    embeddings: 7608,
    preprocessingTokens: 0,
    extractionTokens: '3.1M / 0',
    totalTokens: '3.1M',
    wall: '62 min',
  },
};

/** 57_700_000 -> "57.7M", 12_556 -> "12,556". */
export function humanCount(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  return n.toLocaleString('en-US');
}

export function humanBytes(n: number): string {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(2)} GB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KB`;
  return `${n} B`;
}

export function humanSeconds(s: number): string {
  if (s >= 3600) return `${(s / 3600).toFixed(1)} h`;
  if (s >= 60) return `${(s / 60).toFixed(1)} min`;
  return `${s.toFixed(1)} s`;
}

function formatsLabel(formats: Record<string, number>): string {
  const names: Record<string, string> = { pdf: 'PDF', markdown: 'Markdown', html: 'HTML', text: 'text', passages: 'passages' };
  const entries = Object.entries(formats)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  return entries.map(([f, n]) => (entries.length > 1 ? `${n} ${names[f] ?? f}` : (names[f] ?? f))).join(' + ') || '-';
}

function row(name: string, formats: Record<string, number>, c: LedgerCounts, backends: Record<string, string>): string {
  const tag = (group: string, t: TokenCounts) => (backends[group] === 'offline' && t.total === 0 ? '0 (offline)' : humanCount(t.total));
  return `| ${name} | ${humanBytes(c.sourceBytes)} ${formatsLabel(formats)} | ${humanCount(c.documents)} | ${humanCount(c.markdownChars)} | ${humanCount(c.images)} | ${humanCount(c.ocrPages)} | ${humanCount(c.embeddings)} | ${tag('preprocessing', c.tokens.preprocessing)} | ${tag('extractionText', c.tokens.extractionText)} / ${tag('extractionMultimodal', c.tokens.extractionMultimodal)} | ${humanCount(c.tokens.total.total)} | ${humanSeconds(c.wallSeconds)} |`;
}

/** The ledger as a Markdown table in the layout of the paper's Table 9 (plus the paper's row when known). */
export function ledgerMarkdown(l: CostLedger): string {
  const lines = [
    '| Corpus | Source | Docs | Markdown chars | Images | OCR pages | Embeddings | Pre-proc. tokens | Extraction tokens (text / m) | Total tokens | Wall clock |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    row(`${l.corpus} (index)`, l.formats, l.index, l.backends),
    row(`${l.corpus} (this build)`, l.formats, l.thisBuild, l.backends),
  ];
  if (l.paper) {
    const p = l.paper;
    lines.push(
      `| ${l.corpus} (paper, Table 9) | ${p.source} | ${p.docs} | ${p.markdownChars} | ${p.images} | ${p.ocrPages} | ${p.embeddings} | ${p.preprocessingTokens} | ${p.extractionTokens} | ${p.totalTokens} | ${p.wall} |`,
    );
  }
  const back = Object.entries(l.backends)
    .map(([g, b]) => `${g}: ${b}`)
    .join('; ');
  lines.push(
    '',
    `Backends: ${back}. Pre-processing (file classification, heading tree) is rule-based here (lib/corpus), so it spends no tokens. "this build" counts only what this build computed; "index" sums every document's work, whenever it was done, and the wall clock of every build of the index. Offline numbers are not model results.`,
  );
  return lines.join('\n') + '\n';
}

/** Counts of pages by source. */
export function countPages(pages: readonly { source: string }[] | undefined): PageCounts | undefined {
  if (!pages) return undefined;
  const c = emptyPages();
  for (const p of pages) {
    c.total++;
    if (p.source === 'text' || p.source === 'ocr' || p.source === 'empty' || p.source === 'error') c[p.source]++;
  }
  return c;
}

export function issueOf(i: IngestIssue): DocumentReport['issues'][number] {
  return { severity: i.severity, code: i.code, message: i.message, ...(i.page !== undefined ? { page: i.page } : {}) };
}

/** Aggregate the per-document reports into the summary. */
export function summarize(docs: readonly DocumentReport[], removed: number, relations: BuildSummary['relations']): BuildSummary {
  const s: BuildSummary = {
    documents: docs.length,
    ok: 0,
    error: 0,
    duplicate: 0,
    skipped: 0,
    added: 0,
    changed: 0,
    unchanged: 0,
    removed,
    processed: 0,
    reused: 0,
    pages: emptyPages(),
    fragments: { ...emptyKinds(), total: 0 },
    points: 0,
    relations,
    issues: { errors: 0, warnings: 0 },
  };
  for (const d of docs) {
    s[d.status]++;
    if (d.status === 'ok') s[d.change]++;
    if (d.work === 'processed') s.processed++;
    if (d.work === 'reused') s.reused++;
    if (d.pages) for (const k of Object.keys(s.pages) as (keyof PageCounts)[]) s.pages[k] += d.pages[k];
    for (const k of Object.keys(d.fragments) as FragmentKind[]) {
      s.fragments[k] += d.fragments[k];
      s.fragments.total += d.fragments[k];
    }
    s.points += d.points;
    for (const i of d.issues) s.issues[i.severity === 'error' ? 'errors' : 'warnings']++;
  }
  return s;
}

/** A few lines for a terminal (`kf index build`). */
export function reportSummaryText(r: BuildReport): string {
  const s = r.summary;
  const l = r.ledger.thisBuild;
  const lines = [
    `index ${r.outDir} (${r.generation}${r.resumed ? ', resumed' : ''})`,
    `documents ${s.documents}: ok ${s.ok} (added ${s.added}, changed ${s.changed}, unchanged ${s.unchanged}), error ${s.error}, duplicate ${s.duplicate}, skipped ${s.skipped}; removed ${s.removed}`,
    `work: processed ${s.processed}, reused ${s.reused}`,
    s.pages.total ? `pages ${s.pages.total}: text ${s.pages.text}, ocr ${s.pages.ocr}, empty ${s.pages.empty}, error ${s.pages.error}` : '',
    `fragments ${s.fragments.total} (text ${s.fragments.text}, image ${s.fragments.image}, table ${s.fragments.table}, example ${s.fragments.example}); knowledge points ${s.points}`,
    `relations: recalled ${s.relations.recalled}, typed ${s.relations.typed}, fragment edges ${s.relations.fragmentEdges}`,
    `this build: embeddings ${l.embeddings}, tokens ${l.tokens.total.total}, ${humanSeconds(l.wallSeconds)}; issues: ${s.issues.errors} errors, ${s.issues.warnings} warnings`,
  ];
  for (const d of r.documents.filter((x) => x.status !== 'ok').slice(0, 10)) lines.push(`  ${d.status}: ${d.source}: ${d.reason ?? ''}`);
  const more = r.documents.filter((x) => x.status !== 'ok').length - 10;
  if (more > 0) lines.push(`  ... and ${more} more (see build-report.json)`);
  return lines.filter(Boolean).join('\n');
}
