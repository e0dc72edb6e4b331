/**
 * The index build pipeline (spec job 1, offline):
 *
 *   scan -> per document: ingest -> describe media -> knowledge points   (checkpointed)
 *        -> embed fragments + points                                     (checkpointed)
 *        -> engine (incremental on the previous build) -> relations -> save (atomic)
 *
 * Incremental: every document's work is stored in `work/work.sqlite` under a key
 * made of its id, its content hash and the options/models that shape the work.
 * A rebuild reuses every stored result and processes only added or changed
 * documents; removed documents are dropped from the engine. Relations are
 * recomputed over all points each build (kNN is cheap; LLM typings are cached
 * per pair, so only new pairs cost tokens).
 *
 * Crash safety: each document's result is committed (SQLite, WAL) as soon as it
 * is done, so a build killed with SIGKILL resumes where it stopped. The live
 * index is whatever `CURRENT` names; a new build is written to a temporary
 * folder, renamed into place and only then does CURRENT switch (see open.ts for
 * the layout), so the previous index stays usable until the new one is whole.
 *
 * Bad documents never stop a build: each is reported in build-report.json with
 * its reason and the rest goes on. Nothing already indexed is lost.
 *
 * This file holds the steps in order (buildIndex) and the input key; beside it:
 * build-types.ts (input, options, result, internal records), build-work-store.ts
 * (the checkpoint store), build-documents.ts (scan, per-document work, embedder),
 * build-outputs.ts (reports, ledger, manifest, atomic save), build-helpers.ts.
 */
import { OCR_LAYOUT_VERSION } from '../corpus/ocr-layout';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OcrPool } from '../corpus/ocr';
import { KfError, errorMessage } from '../util/errors';
import { canonicalJson, sha256, shortHash } from '../util/hash';
import { ensureWritableDir, readJsonl } from '../util/fsx';
import { isPidLock, tryPidLock, waitForPidLock } from '../util/pid-lock';
import { runPool } from '../util/worker-pool';
import { benchmarkSpec } from '../bench/registry';
import { stateDir } from '../util/paths';
import { SearchEngine, defaultIndexText, type RelationEdge } from './engine';
import type { CorpusFittedOptions } from './embedders/corpus-fitted';
import type { Embedder, Relation } from './types';
import { emptyUsage, pointText } from './knowledge-points';
import { buildRelations, projectToFragments } from './relations';
import { summarize, type BuildReport, type DocumentReport } from './report';
import { BUILD_PREFIX, currentGeneration, readIndexedDocuments, type IndexManifest } from './open';
import {
  type Build,
  type BuildIndexInput,
  type BuildOptions,
  type BuildResult,
  type DocContext,
  type DocEntry,
  type DocFailure,
  type OkDoc,
  type Relations,
  type ScannedDoc,
  WORK_VERSION,
} from './build-types';
import { WorkStore } from './build-work-store';
import { refuseEmptyBuild } from './refuse-empty';
import { abortIf, backendOf, isOffline, numericSeed, stageModel } from './build-helpers';
import { buildStageModels, modelBuildStages, refuseImplicitModelBuild } from './model-build-guard';
import { refuseFailedDescriptions } from './describe-failures';
import { isSetupFailure } from '../model-api/setup-error';

export { buildStageModels } from './model-build-guard';
import { endpointEmbedder, processDocument, resolveEmbedder, scanDirectory, scanPassages } from './build-documents';
import { costLedger, documentReports, indexManifest, saveBuild, stageBackends } from './build-outputs';
export { EMBEDDER_CHOICES, type EmbedderChoice, type BuildProgress, type BuildOptions, type BuildIndexInput, type BuildResult } from './build-types';

// ---------------------------------------------------------------------------- lock

/** One build at a time per index folder; a lock left by a killed build (dead pid) is taken over. */
function acquireLock(root: string): () => void {
  const file = path.join(root, '.build.lock');
  const r = tryPidLock(file);
  if (isPidLock(r)) return r.release;
  if (r.holder && !r.ownProcess) {
    throw new KfError(
      'index_locked',
      `another build (pid ${r.holder.pid}) is writing the index in ${root}`,
      'wait for it to finish, or stop it; a lock of a dead process is taken over automatically',
      { concerns: root },
    );
  }
  throw new KfError('index_locked', `cannot take the build lock ${file}`, 'remove the file if no build is running', { concerns: file });
}

// ---------------------------------------------------------------------------- the build

function buildSettings(input: BuildIndexInput, root: string, store: WorkStore): Omit<Build, 'prev'> {
  const o: BuildOptions = input.options ?? {};
  const seed = String(o.seed ?? 'kf-index');
  const corpusDir = input.corpusDir ? path.resolve(input.corpusDir) : undefined;
  const captionModel = stageModel(input.models, 'caption');
  const extractionModel = stageModel(input.models, 'extraction');
  const describe = o.describeMedia ?? true;
  const workShape = {
    v: WORK_VERSION,
    // OCR text layout (chart pairs...): a new layout redoes the documents' stored OCR-derived text.
    ocrLayout: OCR_LAYOUT_VERSION,
    ingest: o.ingest ?? {},
    passage: !!input.passages,
    describe,
    caption: describe ? backendOf(isOffline(captionModel) ? undefined : captionModel) : null,
    extraction: backendOf(isOffline(extractionModel) ? undefined : extractionModel),
    kp: {
      maxPerFragment: o.knowledgePoints?.maxPerFragment ?? 8,
      batchFragments: o.knowledgePoints?.batchFragments,
      batchChars: o.knowledgePoints?.batchChars,
    },
  };
  const shapeHash = shortHash(workShape, 16);
  return {
    input,
    o,
    root,
    store,
    seed,
    corpusDir,
    describe,
    workShape,
    captionModel,
    extractionModel,
    progress: async (e) => {
      if (o.onProgress) await o.onProgress(e);
    },
    corpusName: o.corpusName ?? o.benchmark ?? (corpusDir ? path.basename(corpusDir) : 'passages'),
    relationsModel: stageModel(input.models, 'relations'),
    relOpts: o.relations === false ? false : { scope: benchmarkSpec(o.benchmark)?.relationsScope ?? 'corpus', ...(o.relations ?? {}) },
    engineOpts: { ...(o.engine ?? {}), hnsw: { seed: numericSeed(seed), ...(o.engine?.hnsw ?? {}) } },
    workKey: (d) => sha256(`${d.id}\u0000${d.sha}\u0000${shapeHash}`),
  };
}

/** The previous build (the incremental base); an unreadable one counts as none. */
function readPrevious(root: string): Build['prev'] {
  const gen = currentGeneration(root);
  const dir = gen ? path.join(root, gen) : undefined;
  if (!dir) return { docs: new Map() };
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as IndexManifest;
    return { gen, dir, manifest, docs: new Map(readIndexedDocuments(dir).map((d) => [d.id, d])) };
  } catch {
    return { gen, dir, docs: new Map() };
  }
}

/**
 * Per-document work: reuse the checkpoint or process (and checkpoint at once).
 * Documents run `concurrency` at a time (default 2, the cores this is sized for;
 * OCR has its own worker pool). O(documents) checkpoint look-ups, each document's
 * work linear in its size.
 */
async function documentWork(b: Build, scanned: ScannedDoc[], ctx: DocContext): Promise<{ works: Map<string, DocEntry>; failures: Map<string, DocFailure> }> {
  const { o, store } = b;
  const candidates = scanned.filter((d) => !d.verdict);
  const works = new Map<string, DocEntry>();
  const failures = new Map<string, DocFailure>();
  // A document that was indexed before and now fails (a broken new version, an unreadable file) keeps its
  // previously indexed version: a bad document never costs what the index already had. It is reported as an error.
  const keepPrevious = (id: string) => {
    const f = failures.get(id);
    const prev = b.prev.docs.get(id);
    if (!f || f.status !== 'error' || !prev) return;
    const w = store.doc(prev.workKey);
    if (w) works.set(id, { work: w, key: prev.workKey, processed: false, keptPrevious: true });
  };
  // Ids that also have a readable version to process (a Set: asking `scanned` per failed document was O(docs^2)).
  const pending = new Set(candidates.map((d) => d.id));
  for (const d of scanned) {
    if (d.verdict?.status !== 'error' || works.has(d.id) || pending.has(d.id)) continue;
    failures.set(d.id, { status: 'error', reason: d.verdict.reason, issues: [] });
    keepPrevious(d.id);
  }
  let done = 0;
  await runPool(candidates, o.concurrency ?? 2, async (d) => {
    abortIf(o.signal);
    const key = b.workKey(d);
    const stored = store.doc(key);
    if (stored) {
      works.set(d.id, { work: stored, key, processed: false });
    } else {
      try {
        const r = await processDocument(d, ctx);
        if (r.work) {
          store.saveDoc(key, r.work);
          works.set(d.id, { work: r.work, key, processed: true });
        } else failures.set(d.id, r.failure!);
      } catch (e) {
        abortIf(o.signal);
        if (isSetupFailure(e)) throw e; // a wrong key or model fails the build at its first call, with that call's error
        failures.set(d.id, { status: 'error', reason: errorMessage(e), issues: [] });
      }
      keepPrevious(d.id);
    }
    done++;
    const w = works.get(d.id);
    await b.progress({
      phase: 'document',
      docId: d.id,
      status: w ? 'ok' : failures.get(d.id)!.status,
      work: w ? (w.processed ? 'processed' : 'reused') : 'none',
      done,
      total: candidates.length,
    });
  });
  return { works, failures };
}

/** The embedder, and the previous engine when it can be updated in place (same embedder and engine options). */
async function embedderAndBase(b: Build, okDocs: OkDoc[]): Promise<{ embedder: Embedder; choiceName: string; prevEngine?: SearchEngine }> {
  const { input, o, prev } = b;
  const choice = input.embedder ?? 'fitted';
  let prevEngine: SearchEngine | undefined;
  if (prev.dir && prev.manifest && !o.rebuildEngine) {
    try {
      const reuse = typeof choice !== 'string' ? choice : choice === 'openai' ? await endpointEmbedder(input.models) : undefined;
      prevEngine = await SearchEngine.load(path.join(prev.dir, 'engine'), reuse);
    } catch {
      prevEngine = undefined; // a different embedder or an unreadable engine: build from stored vectors
    }
  }
  const { embedder, choice: choiceName } = await resolveEmbedder(choice, o, input.models, () => okDocs.flatMap((d) => d.work.fragments.map(defaultIndexText)), {
    engine: prevEngine,
    fitted: (prev.manifest?.options.embedder as { fitted?: CorpusFittedOptions } | undefined)?.fitted,
  });
  if (prevEngine && (prevEngine.embedder.id !== embedder.id || canonicalJson(prev.manifest?.options.engine ?? null) !== canonicalJson(b.engineOpts)))
    prevEngine = undefined;
  return { embedder, choiceName, prevEngine };
}

/**
 * Vectors of fragments + points per document (checkpointed per document), embedded in batches of about 512 texts.
 * O(texts * tokens * dim) for the offline encoders; one request per batch for an endpoint.
 */
async function embedDocuments(
  b: Build,
  okDocs: OkDoc[],
  embedder: Embedder,
): Promise<{ vectors: Map<string, Float32Array[]>; embedMs: Map<string, number>; embeddedNow: number }> {
  const vecKey = (docKey: string) => sha256(`${docKey}\u0000${embedder.id}`);
  const vectors = new Map<string, Float32Array[]>();
  const embedMs = new Map<string, number>();
  let embeddedNow = 0;
  const size = (d: OkDoc) => d.work.fragments.length + d.work.points.length;
  const missing = okDocs.filter((d) => {
    const v = b.store.vectors(vecKey(d.key));
    if (v && v.vectors.length === size(d) && (v.vectors[0]?.length ?? embedder.dim) === embedder.dim) {
      vectors.set(d.id, v.vectors);
      embedMs.set(d.id, v.ms);
      return false;
    }
    return true;
  });
  const BATCH = 512;
  for (let i = 0; i < missing.length;) {
    abortIf(b.o.signal);
    const group: OkDoc[] = [];
    let n = 0;
    while (i < missing.length && (group.length === 0 || n + size(missing[i]) <= BATCH)) {
      n += size(missing[i]);
      group.push(missing[i++]);
    }
    const texts = group.flatMap((d) => [...d.work.fragments.map(defaultIndexText), ...d.work.points.map(pointText)]);
    const t0 = Date.now();
    let vecs: Float32Array[];
    try {
      vecs = await embedder.embed(texts);
    } catch (e) {
      throw new KfError(
        'embedder_failed',
        `embedding ${texts.length} texts of ${group
          .map((d) => d.id)
          .slice(0, 3)
          .join(', ')} with ${embedder.id} failed: ${errorMessage(e)}`,
        'check the embedding endpoint, then rerun: documents already done are kept',
        { cause: e },
      );
    }
    if (vecs.length !== texts.length)
      throw new KfError(
        'embedder_failed',
        `embedder ${embedder.id} returned ${vecs.length} vectors for ${texts.length} texts`,
        'check the embedding endpoint/model',
      );
    const ms = Date.now() - t0;
    let at = 0;
    for (const d of group) {
      const k = size(d);
      const mine = vecs.slice(at, at + k);
      at += k;
      const share = (ms * k) / Math.max(1, texts.length);
      b.store.saveVectors(vecKey(d.key), d.key, embedder.id, embedder.dim, mine, share);
      vectors.set(d.id, mine);
      embedMs.set(d.id, share);
      embeddedNow += k;
    }
    await b.progress({ phase: 'embed', done: i, total: missing.length });
  }
  return { vectors, embedMs, embeddedNow };
}

/**
 * The engine: the previous build's engine updated by the difference, or a new one from the stored vectors.
 * BM25 O(tokens) and HNSW O(efConstruction * M * log n * dim) per added fragment; progress every ~tenth of the documents.
 */
async function assembleEngine(
  b: Build,
  okDocs: OkDoc[],
  vectors: Map<string, Float32Array[]>,
  embedder: Embedder,
  prevEngine: SearchEngine | undefined,
  change: (id: string, key: string) => DocumentReport['change'],
): Promise<SearchEngine> {
  const addDoc = async (e: SearchEngine, d: OkDoc) => {
    const v = vectors.get(d.id)!;
    await e.addFragments(d.work.fragments, v.slice(0, d.work.fragments.length));
  };
  const step = Math.max(1, Math.ceil(okDocs.length / 10));
  const added = async (i: number) => {
    if ((i + 1) % step === 0 || i + 1 === okDocs.length) await b.progress({ phase: 'engine', done: i + 1, total: okDocs.length });
  };
  if (!prevEngine) {
    const engine = SearchEngine.create({ ...b.engineOpts, embedder });
    for (let i = 0; i < okDocs.length; i++) {
      await addDoc(engine, okDocs[i]);
      await added(i);
    }
    return engine;
  }
  const keep = new Set(okDocs.filter((d) => change(d.id, d.key) === 'unchanged').map((d) => d.id));
  const stale = prevEngine.documents().filter((id) => !keep.has(id));
  if (stale.length) prevEngine.removeDocuments(stale);
  for (const d of okDocs) if (!keep.has(d.id) || !prevEngine.fragmentsOf(d.id).length) await addDoc(prevEngine, d);
  return prevEngine;
}

/**
 * Relations over every point (LLM typings of pairs seen before come from the store); reused as they are when nothing they depend on changed.
 * Recall (relations.ts): exact O(g^2 dim) per group up to 2,000 points, else an HNSW graph per group O(g log g) and its
 * neighbour lists O(g M dim); de-duplication and the cap per point O(pairs log pairs). No quadratic step above 2,000 points.
 */
async function pointRelations(
  b: Build,
  okDocs: OkDoc[],
  vectors: Map<string, Float32Array[]>,
  embedder: Embedder,
): Promise<{ rel: Relations; relShape: string; indexIssues: BuildReport['indexIssues'] }> {
  const { prev, relOpts } = b;
  const indexIssues: BuildReport['indexIssues'] = [];
  const allPoints = okDocs.flatMap((d) => d.work.points);
  const pointVecs = okDocs.flatMap((d) => vectors.get(d.id)!.slice(d.work.fragments.length));
  let rel: Relations = { relations: [], fragmentEdges: [], recalled: 0, typed: 0, usage: emptyUsage(), by: 'offline' };
  // Same documents, embedder and relation settings as the previous build: its relations are exactly what
  // recomputing would give (recall is deterministic, typings are cached), so they are reused as they are.
  const relShape = canonicalJson({ relOpts, embedder: embedder.id, model: backendOf(isOffline(b.relationsModel) ? undefined : b.relationsModel) });
  const sameInputs =
    !!prev.dir &&
    !!prev.manifest &&
    prev.manifest.relationsShape === relShape &&
    prev.docs.size === okDocs.length &&
    okDocs.every((d) => prev.docs.get(d.id)?.workKey === d.key);
  let reused = false;
  if (relOpts !== false && allPoints.length > 1 && sameInputs) {
    const prevRel = readJsonl<Relation>(path.join(prev.dir!, 'relations.jsonl'));
    if (!prevRel.badLines && prevRel.records.length === prev.manifest!.counts.relations.pointEdges) {
      rel = {
        ...rel,
        relations: prevRel.records,
        fragmentEdges: projectToFragments(prevRel.records, allPoints),
        recalled: prev.manifest!.counts.relations.recalled,
        typed: prev.manifest!.counts.relations.typed,
      };
      reused = true;
    }
  }
  if (relOpts !== false && allPoints.length > 1 && !reused) {
    abortIf(b.o.signal);
    await b.progress({ phase: 'relations', total: allPoints.length });
    const r = await buildRelations(allPoints, pointVecs, {
      ...relOpts,
      model: isOffline(b.relationsModel) ? undefined : b.relationsModel,
      cache: b.store,
      signal: b.o.signal,
    });
    for (const i of r.issues) indexIssues.push({ step: 'relations', code: i.code, message: `${i.message} (${i.pairs} pairs)` });
    rel = r;
  }
  return { rel, relShape, indexIssues };
}

/** Scan the corpus and do (or reuse) every document's work, with one OCR pool for the whole build. */
async function scanAndWork(b: Build) {
  const { o, input, corpusDir, root } = b;
  await b.progress({ phase: 'scan', message: corpusDir ?? `${input.passages!.length} passages` });
  const scanned = corpusDir
    ? scanDirectory(corpusDir, o.maxFileBytes ?? 1 << 30, o.include, new Set([...b.prev.docs.values()].map((d) => d.source)))
    : scanPassages(input.passages!);
  const needsOcr = !!corpusDir && (o.ingest?.ocr ?? 'auto') !== 'off';
  const ocrCacheDir = path.resolve(o.ocrCacheDir ?? path.join(root, 'work', 'ocr'));
  // PDF pages without text and images of HTML/Markdown share one pool; its workers start on first use.
  const ocrPool = needsOcr ? new OcrPool({ size: o.ocrWorkers ?? 2, cacheDir: ocrCacheDir }) : undefined;
  const ctx: DocContext = {
    root,
    corpusRoot: corpusDir,
    assetsDir: path.join(root, 'assets'),
    ocrCacheDir,
    ocrPool,
    ingest: o.ingest,
    describe: b.describe,
    captionModel: b.captionModel,
    extractionModel: b.extractionModel,
    kp: o.knowledgePoints ?? {},
    signal: o.signal,
  };
  try {
    const { works, failures } = await documentWork(b, scanned, ctx);
    return { scanned, needsOcr, works, failures, inputKey: buildInputKey(input, fingerprintOf(scanned)) };
  } finally {
    if (ocrPool) await ocrPool.close().catch(() => undefined);
  }
}

/** Build (or update) the index in `outDir`. See the file comment. */
export async function buildIndex(input: BuildIndexInput): Promise<BuildResult> {
  const started = Date.now();
  if (!input.corpusDir === !input.passages) {
    throw new KfError(
      'bad_input',
      'buildIndex needs exactly one of corpusDir (a folder of documents) or passages',
      'pass --corpus <dir> or a passages JSON file',
    );
  }
  if (!input.outDir) throw new KfError('bad_input', 'buildIndex needs outDir', 'pass --out <dir>');
  const root = ensureWritableDir(input.outDir, 'index directory');
  const release = acquireLock(root);
  const store = new WorkStore(path.join(root, 'work', 'work.sqlite'));
  try {
    // Stray temporary build folders of killed builds.
    for (const name of fs.readdirSync(root))
      if (name.startsWith(`.${BUILD_PREFIX}`) && name.includes('.tmp-')) fs.rmSync(path.join(root, name), { recursive: true, force: true });
    const b: Build = { ...buildSettings(input, root, store), prev: readPrevious(root) };
    const { scanned, needsOcr, works, failures, inputKey } = await scanAndWork(b);
    const okDocs: OkDoc[] = [...works.keys()].sort().map((id) => ({ id, ...works.get(id)! })); // a stable order
    refuseEmptyBuild(
      okDocs.reduce((n, d) => n + d.work.fragments.length, 0),
      {
        corpusName: b.corpusName,
        corpusPath: b.corpusDir ?? b.o.corpusPath,
        scanned: scanned.length,
        failures: [
          ...[...failures].map(([id, f]) => ({ id, status: f.status, reason: f.reason })),
          ...scanned.filter((d) => d.verdict && d.verdict.status !== 'error').map((d) => ({ id: d.id, status: d.verdict!.status, reason: d.verdict!.reason })),
        ],
        previousGeneration: b.prev.gen,
      },
    );
    // Failed model descriptions past the limit fail the build (never a silently half-offline index).
    refuseFailedDescriptions(okDocs, {
      byModel: b.describe && !isOffline(b.captionModel),
      maxShare: b.o.maxDescribeFailureShare,
      forget: (docs) => store.prune(new Set(okDocs.filter((d) => !docs.has(d.id)).map((d) => d.key))),
    });
    abortIf(b.o.signal);
    const { embedder, choiceName, prevEngine } = await embedderAndBase(b, okDocs);
    const { vectors, embedMs, embeddedNow } = await embedDocuments(b, okDocs, embedder);
    abortIf(b.o.signal);
    await b.progress({ phase: 'engine' });
    const change = (id: string, key: string): DocumentReport['change'] => {
      const p = b.prev.docs.get(id);
      return !p ? 'added' : p.workKey === key ? 'unchanged' : 'changed';
    };
    const engine = await assembleEngine(b, okDocs, vectors, embedder, prevEngine, change);
    const { rel, relShape, indexIssues } = await pointRelations(b, okDocs, vectors, embedder);
    engine.setRelations(rel.fragmentEdges.map((e): RelationEdge => ({ from: e.from, to: e.to, type: e.type, weight: e.weight })));
    return await finishBuild(b, {
      started,
      scanned,
      works,
      failures,
      okDocs,
      inputKey,
      needsOcr,
      embedder,
      choiceName,
      vectors,
      embedMs,
      embeddedNow,
      engine,
      rel,
      relShape,
      indexIssues,
      change,
    });
  } finally {
    store.close();
    release();
  }
}

/** Report, ledger and manifest of the build, then save it and switch CURRENT to it. */
async function finishBuild(
  b: Build,
  x: {
    started: number;
    scanned: ScannedDoc[];
    works: Map<string, DocEntry>;
    failures: Map<string, DocFailure>;
    okDocs: OkDoc[];
    inputKey: string;
    needsOcr: boolean;
    embedder: Embedder;
    choiceName: string;
    vectors: Map<string, Float32Array[]>;
    embedMs: Map<string, number>;
    embeddedNow: number;
    engine: SearchEngine;
    rel: Relations;
    relShape: string;
    indexIssues: BuildReport['indexIssues'];
    change: (id: string, key: string) => DocumentReport['change'];
  },
): Promise<BuildResult> {
  const { okDocs, rel } = x;
  const reports = documentReports(b, x.scanned, x.works, x.failures, x.change);
  const okSet = new Set(okDocs.map((d) => d.id));
  const removed = [...b.prev.docs.keys()].filter((id) => !okSet.has(id)).sort();
  const relationsSummary = { recalled: rel.recalled, typed: rel.typed, pointEdges: rel.relations.length, fragmentEdges: rel.fragmentEdges.length };
  const summary = summarize(reports, removed.length, relationsSummary);
  // A document done by an interrupted build (added/changed, yet already in the store) means this build resumed.
  const resumed = okDocs.some((d) => !d.processed && x.change(d.id, d.key) !== 'unchanged');
  const backends = stageBackends(b, x.needsOcr, x.choiceName, x.embedder);
  const { ledger, cumulativeRel, indexCounts } = costLedger(b, okDocs, {
    embedMs: x.embedMs,
    embeddedNow: x.embeddedNow,
    rel,
    backends,
    wallSeconds: (Date.now() - x.started) / 1000,
  });
  const generation = nextBuildName(b.root, b.prev.gen);
  const points = okDocs.flatMap((d) => d.work.points);
  const manifest = indexManifest(b, {
    generation,
    okDocs,
    inputKey: x.inputKey,
    relShape: x.relShape,
    embedder: x.embedder,
    choiceName: x.choiceName,
    backends,
    summary,
    relationsSummary,
    indexCounts,
    cumulativeRel,
    points: points.length,
  });
  const corpus = { kind: b.corpusDir ? ('directory' as const) : ('passages' as const), ...(b.corpusDir ? { path: b.corpusDir } : {}), name: b.corpusName };
  const report: BuildReport = {
    kind: 'kf-build-report',
    version: 1,
    generation,
    ...(b.prev.gen ? { previousGeneration: b.prev.gen } : {}),
    startedAt: new Date(x.started).toISOString(),
    finishedAt: new Date().toISOString(),
    outDir: b.root,
    corpus,
    resumed,
    summary,
    documents: reports,
    removed,
    indexIssues: x.indexIssues,
    ledger,
  };
  abortIf(b.o.signal);
  await b.progress({ phase: 'save' });
  const finalDir = await saveBuild(b, { generation, engine: x.engine, okDocs, points, rel, report, ledger, manifest });
  await b.progress({ phase: 'done', done: okDocs.length, total: x.scanned.length });
  return { outDir: b.root, generation, generationDir: finalDir, manifest, report, ledger };
}

/** Content fingerprint of a scanned corpus: ids, sources and content hashes of every document (failures included). */
function fingerprintOf(scanned: readonly ScannedDoc[]): string {
  return sha256(scanned.map((d) => `${d.id}\u0000${d.source}\u0000${d.sha}`).join('\n'));
}

/**
 * What determines a build's result: the corpus content and every setting that
 * shapes the index. Equal keys = the built index is current (ensureIndex).
 */
function buildInputKey(input: BuildIndexInput, fingerprint: string): string {
  const o = input.options ?? {};
  return shortHash(
    {
      v: WORK_VERSION,
      fingerprint,
      embedder: typeof input.embedder === 'string' || input.embedder === undefined ? (input.embedder ?? 'fitted') : `custom:${input.embedder.id}`,
      seed: String(o.seed ?? 'kf-index'),
      benchmark: o.benchmark ?? null,
      ingest: o.ingest ?? {},
      describe: o.describeMedia ?? true,
      kp: o.knowledgePoints ? { ...o.knowledgePoints, signal: undefined } : {},
      relations: o.relations === false ? false : { ...(o.relations ?? {}), signal: undefined },
      engine: o.engine ?? {},
      hashDim: o.hashDim ?? null,
      fitted: o.fitted ?? null,
      models: buildStageModels(input.models),
    },
    24,
  );
}

/** The content fingerprint of a corpus as it is now (reads and hashes every document; no processing). */
export function corpusFingerprint(input: Pick<BuildIndexInput, 'corpusDir' | 'passages' | 'options'>): string {
  const o = input.options ?? {};
  const scanned = input.corpusDir ? scanDirectory(path.resolve(input.corpusDir), o.maxFileBytes ?? 1 << 30, o.include) : scanPassages(input.passages ?? []);
  return fingerprintOf(scanned);
}

/** The input key of a corpus as it is now (reads and hashes every document; no processing). */
export function currentInputKey(input: Omit<BuildIndexInput, 'outDir'>): string {
  return buildInputKey({ ...input, outDir: '' }, corpusFingerprint(input));
}

export interface EnsureIndexInput extends Omit<BuildIndexInput, 'outDir'> {
  /** An implicit build (kf run, kf ask): refuse to build when a build stage calls a model, naming `prepare` (lib/index/model-build-guard.ts). */
  refuseModelBuild?: { what: string; prepare: string };
  /** An asked-for build (kf prepare): called before a build that calls a model (prints the estimate, may refuse without --yes). */
  beforeModelBuild?: (input: EnsureIndexInput) => void | Promise<void>;
  /** Use (and update when stale) this index folder; default: a folder named by the input key under `cacheRoot`. */
  outDir?: string;
  /** Where content-addressed indexes live (default <repo>/.kf-cache/indexes). */
  cacheRoot?: string;
}

/**
 * The index for this corpus and these settings, built only when missing or
 * stale (its manifest's input key differs from the corpus as it is now). Without
 * `outDir` the index lives under a content-hash folder, so repeated evaluations
 * of the same corpus and settings reuse it.
 */
export async function ensureIndex(input: EnsureIndexInput): Promise<{ dir: string; built: boolean; result?: BuildResult }> {
  const key = currentInputKey(input);
  const name = (input.options?.corpusName ?? input.options?.benchmark ?? (input.corpusDir ? path.basename(path.resolve(input.corpusDir)) : 'passages')).replace(
    /[^A-Za-z0-9._-]+/g,
    '_',
  );
  const dir = input.outDir ? path.resolve(input.outDir) : path.join(input.cacheRoot ?? stateDir('indexes'), `${name}-${key.slice(0, 16)}`);
  // Another process building this very index (two runs or test files starting at once): wait, then reuse its build.
  for (let attempt = 0; ; attempt++) {
    await waitWhileBuilt(dir);
    if (isCurrent(dir, key)) return { dir, built: false };
    if (input.refuseModelBuild) refuseImplicitModelBuild(input.models, input.embedder, input.refuseModelBuild);
    else if (input.beforeModelBuild && modelBuildStages(input.models, input.embedder).length) await input.beforeModelBuild(input);
    try {
      const result = await buildIndex({ ...input, outDir: dir });
      return { dir, built: true, result };
    } catch (e) {
      if (!(e instanceof KfError && e.code === 'index_locked') || attempt >= 3) throw e;
    }
  }
}

/** The index at `dir` exists and was built from the inputs with this key. */
function isCurrent(dir: string, key: string): boolean {
  const gen = fs.existsSync(dir) ? currentGeneration(dir) : undefined;
  if (!gen) return false;
  try {
    const m = JSON.parse(fs.readFileSync(path.join(dir, gen, 'manifest.json'), 'utf8')) as IndexManifest;
    return m.inputKey === key;
  } catch {
    return false; // unreadable manifest: rebuild
  }
}

/** Wait (polling) while a live process of this host holds the build lock of `root`. */
async function waitWhileBuilt(root: string): Promise<void> {
  const file = path.join(root, '.build.lock');
  if (!fs.existsSync(file)) return;
  const r = await waitForPidLock(file, { pollMs: 200, timeoutMs: 30 * 60_000 });
  if (isPidLock(r)) r.release();
}

function nextBuildName(root: string, current: string | undefined): string {
  let max = current ? Number(current.slice(BUILD_PREFIX.length)) : 0;
  for (const name of fs.readdirSync(root)) {
    const m = new RegExp(`^\\.?${BUILD_PREFIX}(\\d+)`).exec(name);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return `${BUILD_PREFIX}${String(max + 1).padStart(6, '0')}`;
}
