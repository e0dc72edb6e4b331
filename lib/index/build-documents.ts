/** The build's per-document side: scanning the corpus, ingesting, describing and extracting each document, and the embedder. */
import * as fs from 'node:fs';
import type { CorpusPassage } from '../bench/types';
import type { IngestIssue, IngestResult } from '../corpus/types';
import { ingestFile, ingestText, listCorpusFiles, formatOf } from '../corpus/ingest';
import { docIdFromRel } from '../corpus/source';
import { describeFragments } from '../corpus/describe';
import { KfError, errorMessage } from '../util/errors';
import { canonicalJson, sha256 } from '../util/hash';
import { SearchEngine } from './engine';
import { HashingEmbedder } from './embedders/hashing';
import { GloveSifEmbedder } from './embedders/glove-sif';
import { CorpusFittedEmbedder, type CorpusFittedOptions } from './embedders/corpus-fitted';
import type { Embedder } from './types';
import { emptyUsage, extractKnowledgePoints } from './knowledge-points';
import type { IndexModels } from './open';
import { type BuildOptions, type DocContext, type DocWork, EMBEDDER_CHOICES, type EmbedderChoice, type ScannedDoc } from './build-types';
import { countingModel, isOffline } from './build-helpers';

// ---------------------------------------------------------------------------- scan

/**
 * The documents of a corpus folder, sorted by path. Files already indexed by the
 * previous build (`previousSources`) claim their id and content first, so a new
 * file with the same id or the same bytes never displaces an indexed document.
 */
export function scanDirectory(
  dir: string,
  maxBytes: number,
  include?: (rel: string) => boolean,
  previousSources: ReadonlySet<string> = new Set(),
): ScannedDoc[] {
  const listed = listCorpusFiles(dir);
  const files = include ? listed.files.filter((f) => include(f.rel)) : listed.files;
  const refused = include ? listed.refused.filter((r) => include(r.rel)) : listed.refused;
  const out: ScannedDoc[] = [];
  const bySha = new Map<string, string>();
  const byId = new Map<string, string>();
  for (const r of refused) out.push({ id: docIdFromRel(r.rel), source: r.rel, sha: '', bytes: 0, verdict: { status: 'error', reason: r.reason } });
  const ordered = [...files.filter((f) => previousSources.has(f.rel)), ...files.filter((f) => !previousSources.has(f.rel))];
  const docs = new Map<string, ScannedDoc>();
  for (const f of ordered) {
    const id = docIdFromRel(f.rel);
    const d: ScannedDoc = { id, source: f.rel, sha: '', bytes: 0, abs: f.abs, format: formatOf(f.abs) };
    docs.set(f.rel, d);
    let size: number;
    try {
      size = fs.statSync(f.abs).size;
    } catch (e) {
      d.verdict = { status: 'error', reason: `cannot read (${(e as NodeJS.ErrnoException).code ?? errorMessage(e)})` };
      continue;
    }
    d.bytes = size;
    if (size > maxBytes) {
      d.verdict = { status: 'skipped', reason: `file is ${size} bytes, over the limit of ${maxBytes} (options.maxFileBytes)` };
      continue;
    }
    try {
      d.sha = sha256(fs.readFileSync(f.abs));
    } catch (e) {
      d.verdict = { status: 'error', reason: `cannot read (${(e as NodeJS.ErrnoException).code ?? errorMessage(e)})` };
      continue;
    }
    const other = byId.get(id);
    if (other !== undefined) {
      d.verdict = { status: 'error', reason: `document id "${id}" is also the id of ${other} (ids are paths without extension): rename one of the files` };
      continue;
    }
    const dup = bySha.get(d.sha);
    if (dup !== undefined && size > 0) {
      d.verdict = { status: 'duplicate', reason: `same content (sha256 ${d.sha.slice(0, 12)}) as ${dup}`, duplicateOf: dup };
      continue;
    }
    byId.set(id, f.rel);
    bySha.set(d.sha, f.rel);
  }
  for (const f of files) out.push(docs.get(f.rel)!);
  return out;
}

export function scanPassages(passages: readonly CorpusPassage[]): ScannedDoc[] {
  const out: ScannedDoc[] = [];
  const byId = new Set<string>();
  passages.forEach((p, i) => {
    const id = typeof p?.id === 'string' ? p.id : '';
    const d: ScannedDoc = { id: id || `(passage ${i})`, source: `passage:${id || i}`, sha: '', bytes: 0, format: 'text', passage: p };
    out.push(d);
    if (!id) {
      d.verdict = { status: 'error', reason: `passage ${i} has no id: give every passage a non-empty string id` };
      return;
    }
    if (typeof p.text !== 'string' || !p.text.trim()) {
      d.verdict = { status: 'skipped', reason: 'empty passage text' };
      return;
    }
    if (byId.has(id)) {
      d.verdict = { status: 'duplicate', reason: `passage id "${id}" appears more than once (the first one is indexed)`, duplicateOf: `passage:${id}` };
      return;
    }
    byId.add(id);
    d.sha = sha256(canonicalJson({ id, title: p.title ?? '', text: p.text }));
    d.bytes = Buffer.byteLength(p.text);
  });
  return out;
}

// ---------------------------------------------------------------------------- per-document work

export async function ingestPassage(d: ScannedDoc, ctx: DocContext): Promise<IngestResult> {
  const p = d.passage!;
  const res = await ingestText(`${d.id}.txt`, { content: p.text, docId: d.id, corpusRoot: '/', fragmentChars: ctx.ingest?.fragmentChars });
  if (res.doc) {
    res.doc.title = (p.title ?? '').trim() || d.id;
    res.doc.source = d.source;
    res.doc.sha256 = d.sha;
    res.doc.meta = { ...res.doc.meta, ...(p.meta ?? {}) };
  }
  // The title takes part in retrieval through the section path (as a document heading would).
  const title = (p.title ?? '').trim();
  if (title) for (const f of res.fragments) if (!f.section.length) f.section = [title];
  return res;
}

export async function processDocument(
  d: ScannedDoc,
  ctx: DocContext,
): Promise<{ work?: DocWork; failure?: { status: 'error' | 'skipped'; reason: string; issues: IngestIssue[] } }> {
  const t0 = Date.now();
  let res: IngestResult;
  if (d.passage) res = await ingestPassage(d, ctx);
  else {
    res = await ingestFile(d.abs!, {
      ...(ctx.ingest ?? {}),
      corpusRoot: ctx.corpusRoot,
      assetsDir: ctx.assetsDir,
      cacheDir: ctx.ocrCacheDir,
      ocrPool: ctx.ocrPool,
    });
  }
  if (!res.doc) {
    const err = res.issues.find((i) => i.severity === 'error');
    // An empty file is not broken: it has nothing to index.
    const status = err?.code === 'empty' ? 'skipped' : 'error';
    return { failure: { status, reason: err?.message ?? 'the document could not be read', issues: res.issues } };
  }
  if (!res.fragments.length) {
    const why = res.issues.find((i) => i.code === 'empty' || i.code === 'no_content');
    return { failure: { status: 'skipped', reason: why?.message ?? 'no text, image or table was found', issues: res.issues } };
  }
  const issues = [...res.issues];
  let fragments = res.fragments;
  const multimodal = emptyUsage();
  if (ctx.describe && fragments.some((f) => f.kind === 'image' || f.kind === 'table')) {
    // Count the vision model's tokens for this document (Appendix D "extraction multimodal").
    const vlm = isOffline(ctx.captionModel) ? undefined : countingModel(ctx.captionModel!, multimodal);
    const described = await describeFragments(fragments, {
      model: vlm,
      stage: 'caption',
      corpusRoot: ctx.corpusRoot,
      assetsDir: ctx.assetsDir,
      ocr: ctx.ingest?.ocr === 'off' ? false : ctx.ocrPool,
      cacheDir: ctx.ocrCacheDir,
      minOcrConfidence: ctx.ingest?.minOcrConfidence,
      signal: ctx.signal,
    });
    fragments = described.fragments;
    for (const f of described.failures)
      issues.push({
        doc: d.id,
        severity: 'warning',
        code: 'describe_failed',
        message: `describing ${f.id} failed (${f.error}); the offline description is used`,
      });
  }
  const kp = await extractKnowledgePoints(fragments, { ...ctx.kp, model: ctx.extractionModel, signal: ctx.signal });
  for (const i of kp.issues)
    issues.push({
      doc: d.id,
      severity: 'warning',
      code: `extraction_${i.code}`,
      message: `${i.message} (fragments ${i.fragmentIds.slice(0, 3).join(', ')}${i.fragmentIds.length > 3 ? ', ...' : ''})`,
    });
  return {
    work: {
      doc: res.doc,
      fragments,
      pages: res.pages,
      issues,
      stats: { ...res.stats, chars: fragments.reduce((n, f) => n + f.text.length, 0) },
      points: kp.points,
      usage: { multimodal, extraction: kp.usage },
      ms: Date.now() - t0,
    },
  };
}

// ---------------------------------------------------------------------------- embedder

/** The configured OpenAI-compatible embedder, with its dimension known (one probe call when needed). */
export async function endpointEmbedder(models: IndexModels | undefined): Promise<Embedder> {
  const e = models?.embedder?.();
  if (!e)
    throw new KfError(
      'embedder_unavailable',
      'the openai embedder was chosen but no embedding endpoint/model is configured',
      'configure the embedding stage (models config or OPENAI_BASE_URL + KF_EMBEDDING_MODEL), or use --embedder fitted|glove|hash',
      { concerns: 'embedding' },
    );
  await (e as Embedder & { init?: () => Promise<unknown> }).init?.();
  return e;
}

export async function resolveEmbedder(
  choice: Embedder | EmbedderChoice,
  opts: BuildOptions,
  models: IndexModels | undefined,
  fitTexts: () => string[],
  previous: { engine?: SearchEngine; fitted?: CorpusFittedOptions },
): Promise<{ embedder: Embedder; choice: string }> {
  if (typeof choice !== 'string') return { embedder: choice, choice: 'custom' };
  switch (choice) {
    case 'hash':
      return { embedder: new HashingEmbedder(opts.hashDim ?? 256), choice };
    case 'glove':
      return { embedder: new GloveSifEmbedder(), choice };
    case 'fitted': {
      // Keep the previous build's fit: new documents are embedded in the same space and old vectors stay valid.
      const prev = previous.engine?.embedder;
      if (prev && prev instanceof CorpusFittedEmbedder && !opts.refitEmbedder && canonicalJson(previous.fitted ?? {}) === canonicalJson(opts.fitted ?? {})) {
        return { embedder: prev, choice };
      }
      return { embedder: await CorpusFittedEmbedder.fit(fitTexts(), opts.fitted), choice };
    }
    case 'openai':
      return { embedder: await endpointEmbedder(models), choice };
  }
  throw new KfError('bad_option', `unknown embedder "${String(choice)}"`, `use one of ${EMBEDDER_CHOICES.join(', ')}`);
}
