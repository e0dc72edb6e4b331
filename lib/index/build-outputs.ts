/** What a build writes: document reports, the cost ledger, the manifest, and the atomic save of a build folder. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sha256 } from '../util/hash';
import { writeFileAtomic, writeJsonAtomic, writeStreamedAtomic, fsyncDir } from '../util/fsx';
import { gitInfo } from '../util/git';
import { SearchEngine } from './engine';
import type { Embedder, KnowledgePoint } from './types';
import { addUsage, emptyUsage, type StageUsage } from './knowledge-points';
import {
  PAPER_APPENDIX_D,
  addLedgerCounts,
  countPages,
  emptyKinds,
  emptyLedgerCounts,
  finishTokens,
  issueOf,
  ledgerMarkdown,
  tokenCounts,
  type BuildReport,
  type CostLedger,
  type DocumentReport,
  type LedgerCounts,
} from './report';
import { BUILD_PREFIX, INDEX_MANIFEST_KIND, INDEX_POINTER, type IndexManifest, type IndexedDocument, type StageBackend } from './open';
import type { Build, DocEntry, DocFailure, DocWork, OkDoc, Relations, ScannedDoc } from './build-types';
import { backendOf, isOffline, usageOf } from './build-helpers';
import { descriptionCounts } from './describe-failures';

/** One report line per scanned document: indexed, kept at its previous version, or why not. */
export function documentReports(
  b: Build,
  scanned: ScannedDoc[],
  works: Map<string, DocEntry>,
  failures: Map<string, DocFailure>,
  change: (id: string, key: string) => DocumentReport['change'],
): DocumentReport[] {
  const kindsOf = (w: DocWork) => {
    const kinds = emptyKinds();
    for (const x of w.fragments) kinds[x.kind]++;
    return kinds;
  };
  return scanned.map((d): DocumentReport => {
    const w = works.get(d.id);
    if (w?.keptPrevious && failures.has(d.id)) {
      const f = failures.get(d.id)!;
      return {
        id: d.id,
        source: d.source,
        title: w.work.doc.title,
        format: w.work.doc.format,
        status: 'error',
        reason: `${f.reason} -- the previously indexed version is kept`,
        keptPrevious: true,
        work: 'reused',
        change: 'unchanged',
        ...(d.sha ? { sha256: d.sha } : {}),
        fragments: kindsOf(w.work),
        points: w.work.points.length,
        issues: f.issues.map(issueOf),
      };
    }
    if (w && !d.verdict) {
      return {
        id: d.id,
        source: d.source,
        title: w.work.doc.title,
        format: w.work.doc.format,
        status: 'ok',
        work: w.processed ? 'processed' : 'reused',
        change: change(d.id, w.key),
        sha256: d.sha,
        ...(w.work.pages
          ? {
              pages: countPages(w.work.pages),
              pageSources: w.work.pages.map((p) => ({ page: p.page, source: p.source, chars: p.chars, ...(p.error ? { error: p.error } : {}) })),
            }
          : {}),
        fragments: kindsOf(w.work),
        points: w.work.points.length,
        issues: w.work.issues.map(issueOf),
      };
    }
    const f = d.verdict ?? failures.get(d.id);
    const v = d.verdict;
    return {
      id: d.id,
      source: d.source,
      format: d.format,
      status: f?.status ?? 'error',
      reason: f?.reason ?? 'unknown failure',
      ...(v?.duplicateOf ? { duplicateOf: v.duplicateOf } : {}),
      work: 'none',
      change: b.prev.docs.has(d.id) ? 'changed' : 'added',
      ...(d.sha ? { sha256: d.sha } : {}),
      fragments: emptyKinds(),
      points: 0,
      issues: (failures.get(d.id)?.issues ?? []).map(issueOf),
    };
  });
}

/** Ledger counts of one indexed document. */
export function docLedgerCounts(d: OkDoc, embedMs: Map<string, number>): LedgerCounts {
  const c = emptyLedgerCounts();
  c.documents = 1;
  c.sourceBytes = Number(d.work.doc.meta?.bytes ?? 0) || Buffer.byteLength(d.work.fragments.map((f) => f.text).join(''));
  c.markdownChars = d.work.stats.chars;
  c.images = d.work.stats.images;
  c.tables = d.work.stats.tables;
  c.ocrPages = d.work.stats.ocrPages;
  c.pages = d.work.pages?.length ?? 0;
  c.fragments = d.work.fragments.length;
  c.points = d.work.points.length;
  c.embeddings = c.fragments + c.points;
  c.tokens.extractionText = tokenCounts(usageOf(d.work.usage.extraction));
  c.tokens.extractionMultimodal = tokenCounts(usageOf(d.work.usage.multimodal));
  c.documentSeconds = (d.work.ms + (embedMs.get(d.id) ?? 0)) / 1000;
  return finishTokens(c);
}

/** Ledger counts summed over documents, with the relation usage folded into the text-extraction tokens. */
export function summedCounts(docs: OkDoc[], embedMs: Map<string, number>, relUsage: StageUsage): LedgerCounts {
  const c = emptyLedgerCounts();
  for (const d of docs) addLedgerCounts(c, docLedgerCounts(d, embedMs));
  const t = c.tokens.extractionText;
  c.tokens.extractionText = tokenCounts({ calls: t.calls, promptTokens: t.promptTokens, completionTokens: t.completionTokens, cacheHits: 0 }, relUsage);
  return finishTokens(c);
}

/** Backend and model per build stage (`offline` means rules, never a model result). */
export function stageBackends(b: Build, needsOcr: boolean, choiceName: string, embedder: Embedder): Record<string, StageBackend> {
  return {
    ingest: { backend: 'offline', model: needsOcr ? 'rules + tesseract OCR' : 'rules' },
    caption: b.describe ? backendOf(isOffline(b.captionModel) ? undefined : b.captionModel) : { backend: 'none', model: 'not run' },
    extraction: backendOf(isOffline(b.extractionModel) ? undefined : b.extractionModel),
    relations: b.relOpts === false ? { backend: 'none', model: 'not run' } : backendOf(isOffline(b.relationsModel) ? undefined : b.relationsModel),
    embedding: { backend: choiceName === 'openai' ? 'openai' : 'offline', model: embedder.id },
  };
}

/** The cost ledger: the whole index (cumulative relation costs) and this build (documents processed now). */
export function costLedger(
  b: Build,
  okDocs: OkDoc[],
  x: { embedMs: Map<string, number>; embeddedNow: number; rel: Relations; backends: Record<string, StageBackend>; wallSeconds: number },
) {
  const cumulativeRel = usageOf(b.prev.manifest?.cumulative?.relations ?? emptyUsage());
  addUsage(cumulativeRel, x.rel.usage);
  const indexCounts = summedCounts(okDocs, x.embedMs, cumulativeRel);
  const buildCounts = summedCounts(
    okDocs.filter((d) => d.processed),
    x.embedMs,
    x.rel.usage,
  );
  buildCounts.embeddings = x.embeddedNow;
  buildCounts.wallSeconds = x.wallSeconds;
  indexCounts.wallSeconds = (b.prev.manifest?.cumulative?.wallSeconds ?? 0) + x.wallSeconds;
  const formats: Record<string, number> = {};
  for (const d of okDocs) {
    const f = b.input.passages ? 'passages' : d.work.doc.format;
    formats[f] = (formats[f] ?? 0) + 1;
  }
  const { extraction, relations, caption } = x.backends;
  const ledger: CostLedger = {
    corpus: b.corpusName,
    formats,
    backends: {
      preprocessing: 'offline',
      extractionText: extraction.backend === 'offline' && relations.backend !== 'openai' ? 'offline' : `${extraction.backend}/${relations.backend}`,
      extractionMultimodal: caption.backend,
    },
    index: indexCounts,
    thisBuild: buildCounts,
    ...(b.o.benchmark && PAPER_APPENDIX_D[b.o.benchmark] ? { paper: PAPER_APPENDIX_D[b.o.benchmark] } : {}),
  };
  return { ledger, cumulativeRel, indexCounts };
}

/** The manifest of the new build. */
export function indexManifest(
  b: Build,
  x: {
    generation: string;
    okDocs: OkDoc[];
    inputKey: string;
    relShape: string;
    embedder: Embedder;
    choiceName: string;
    backends: Record<string, StageBackend>;
    summary: BuildReport['summary'];
    relationsSummary: IndexManifest['counts']['relations'];
    indexCounts: LedgerCounts;
    cumulativeRel: StageUsage;
    points: number;
  },
): IndexManifest {
  const { o, prev, corpusDir, okDocs } = { ...b, okDocs: x.okDocs };
  const byKind: Record<string, number> = { ...emptyKinds() };
  for (const d of okDocs) for (const f of d.work.fragments) byKind[f.kind]++;
  const git = gitInfo();
  return {
    kind: INDEX_MANIFEST_KIND,
    version: 1,
    generation: x.generation,
    ...(prev.gen ? { previousGeneration: prev.gen } : {}),
    builtAt: new Date().toISOString(),
    corpus: {
      kind: corpusDir ? 'directory' : 'passages',
      ...(corpusDir ? { path: corpusDir } : {}),
      name: b.corpusName,
      hash: sha256(okDocs.map((d) => `${d.id}\u0000${d.work.doc.sha256}`).join('\n')),
      documents: okDocs.length,
    },
    ...(o.benchmark ? { benchmark: o.benchmark } : {}),
    inputKey: x.inputKey,
    relationsShape: x.relShape,
    embedder: { id: x.embedder.id, dim: x.embedder.dim, choice: x.choiceName },
    seed: b.seed,
    git: { commit: git.commit, dirty: git.dirty },
    backends: x.backends,
    offline: Object.values(x.backends).every((s) => s.backend === 'offline' || s.backend === 'none'),
    descriptions: descriptionCounts(okDocs, b.describe && !isOffline(b.captionModel)),
    options: {
      work: b.workShape,
      relations: b.relOpts,
      engine: b.engineOpts,
      embedder: { choice: x.choiceName, hashDim: o.hashDim, fitted: o.fitted },
      concurrency: o.concurrency ?? 2,
    },
    counts: {
      documents: okDocs.length,
      fragments: x.summary.fragments.total,
      byKind,
      points: x.points,
      relations: x.relationsSummary,
      pages: x.summary.pages.total,
      embeddings: x.indexCounts.embeddings,
    },
    cumulative: { relations: x.cumulativeRel, builds: (prev.manifest?.cumulative?.builds ?? 0) + 1, wallSeconds: x.indexCounts.wallSeconds },
  };
}

export function indexedDocuments(okDocs: OkDoc[]): IndexedDocument[] {
  return okDocs.map((d) => ({
    id: d.id,
    title: d.work.doc.title,
    source: d.work.doc.source,
    format: d.work.doc.format,
    ...(d.work.doc.pages !== undefined ? { pages: d.work.doc.pages } : {}),
    sha256: d.work.doc.sha256,
    workKey: d.key,
    fragments: d.work.fragments.length,
    points: d.work.points.length,
    meta: d.work.doc.meta ?? {},
  }));
}

/** Save: a complete build folder under a temporary name, renamed, then CURRENT switches; older builds and stale work go. */
export async function saveBuild(
  b: Build,
  x: {
    generation: string;
    engine: SearchEngine;
    okDocs: OkDoc[];
    points: KnowledgePoint[];
    rel: Relations;
    report: BuildReport;
    ledger: CostLedger;
    manifest: IndexManifest;
  },
): Promise<string> {
  const { root } = b;
  const tmp = path.join(root, `.${x.generation}.tmp-${process.pid}`);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  await x.engine.save(path.join(tmp, 'engine'));
  writeJsonAtomic(path.join(tmp, 'documents.json'), indexedDocuments(x.okDocs));
  // One line per record, streamed (same bytes as joining them; no whole-file string at paper scale).
  writeStreamedAtomic(path.join(tmp, 'knowledge-points.jsonl'), (put) => x.points.forEach((p) => put(JSON.stringify(p) + '\n')));
  writeStreamedAtomic(path.join(tmp, 'relations.jsonl'), (put) => x.rel.relations.forEach((r) => put(JSON.stringify(r) + '\n')));
  writeJsonAtomic(path.join(tmp, 'build-report.json'), x.report);
  writeJsonAtomic(path.join(tmp, 'cost-ledger.json'), x.ledger);
  writeFileAtomic(path.join(tmp, 'cost-ledger.md'), ledgerMarkdown(x.ledger));
  writeJsonAtomic(path.join(tmp, 'manifest.json'), x.manifest);
  const finalDir = path.join(root, x.generation);
  fs.rmSync(finalDir, { recursive: true, force: true });
  fs.renameSync(tmp, finalDir);
  fsyncDir(root);
  writeFileAtomic(path.join(root, INDEX_POINTER), `${x.generation}\n`);
  fsyncDir(root);
  // The new build is live: drop older builds, the work of documents that left the corpus, refresh the top-level copies.
  for (const name of fs.readdirSync(root)) {
    if (new RegExp(`^${BUILD_PREFIX}\\d+$`).test(name) && name !== x.generation) fs.rmSync(path.join(root, name), { recursive: true, force: true });
  }
  b.store.prune(new Set(x.okDocs.map((d) => d.key)));
  writeJsonAtomic(path.join(root, 'build-report.json'), x.report);
  writeJsonAtomic(path.join(root, 'cost-ledger.json'), x.ledger);
  writeFileAtomic(path.join(root, 'cost-ledger.md'), ledgerMarkdown(x.ledger));
  return finalDir;
}
