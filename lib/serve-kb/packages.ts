/**
 * The packages `kf serve kb` answers for: each is a uuid and a view of the served corpus, either the
 * whole index or one document of it (MMLongBench-Doc's single-document setting: the released runner
 * asks one package per document). Uuids come from a package map (the runner's data/kb_packages.json,
 * so its own ids route to our documents) or are made from the document ids (`--write-packages`
 * writes them in the runner's layout).
 */
import * as path from 'node:path';
import type { EngineKnowledgeBase } from '../pipeline/engine-knowledge-base';
import type { PackageEntry } from '../remote-kb/package-map';
import { docStem } from '../remote-kb/shapes';
import { KfError } from '../util/errors';
import { shortHash } from '../util/hash';
import type { ServedCorpus, ServedDocument } from './corpus';

export interface ServedPackage {
  uuid: string;
  /** What card and overview call it. */
  name: string;
  corpus: ServedCorpus;
  /** The corpus's view restricted to this package's documents. */
  kb: EngineKnowledgeBase;
  /** Its documents. */
  docs: ServedDocument[];
  /** True when it serves one document of a larger corpus. */
  perDocument: boolean;
}

/** The root node id the API gives a document (media hits name their document by it). */
export function rootNodeOf(docId: string): string {
  let id = roots.get(docId);
  if (id === undefined) roots.set(docId, (id = `root_${shortHash(docId, 16)}`));
  return id;
}
const roots = new Map<string, string>();

/** A uuid in the runner's form for a document served without a map. */
export function madeUuid(docId: string): string {
  return `resource_package:${shortHash(`kf-serve-kb:${docId}`, 32)}`;
}

export function wholePackage(corpus: ServedCorpus, uuid: string): ServedPackage {
  return { uuid, name: corpus.name, corpus, kb: corpus.kb, docs: corpus.documents(), perDocument: false };
}

export function documentPackage(corpus: ServedCorpus, doc: ServedDocument, uuid: string): ServedPackage {
  return { uuid, name: doc.title, corpus, kb: corpus.kb.restrictedTo([doc.id]), docs: [doc], perDocument: true };
}

/** One package per document of the corpora, uuids made from the document ids. */
export function perDocumentPackages(corpora: ServedCorpus[]): ServedPackage[] {
  return corpora.flatMap((corpus) => corpus.documents().map((d) => documentPackage(corpus, d, madeUuid(d.id))));
}

/** The corpus and document an entry of a package map names, matched by id or file name. */
function documentOf(corpora: ServedCorpus[], e: PackageEntry): { corpus: ServedCorpus; doc: ServedDocument } | undefined {
  for (const corpus of corpora) {
    const doc = corpus.document(e.name) ?? corpus.document(e.doc) ?? corpus.document(docStem(e.name));
    if (doc) return { corpus, doc };
  }
  return undefined;
}

/**
 * Packages from a map over one or more corpora (one shared index, or one index per document):
 * entries naming a served document serve that document; when none does and the map (or its section)
 * has one entry and one corpus is served, that uuid serves the whole corpus (the runner's M3DocVQA and
 * MultiHop-RAG packages). `unmatched` lists the entries nothing here answers for.
 */
export function packagesFromMap(corpora: ServedCorpus[], entries: PackageEntry[], file: string): { packages: ServedPackage[]; unmatched: PackageEntry[] } {
  const packages: ServedPackage[] = [];
  const unmatched: PackageEntry[] = [];
  for (const e of entries) {
    const hit = documentOf(corpora, e);
    if (hit) packages.push(documentPackage(hit.corpus, hit.doc, e.uuid));
    else unmatched.push(e);
  }
  if (packages.length) return { packages, unmatched };
  if (entries.length === 1 && corpora.length === 1) return { packages: [wholePackage(corpora[0], entries[0].uuid)], unmatched: [] };
  const sections = [...new Set(entries.map((e) => e.section).filter(Boolean))];
  const some = corpora.flatMap((c) => c.documents().slice(0, 3)).slice(0, 3);
  throw new KfError(
    'package_map_mismatch',
    `no entry of ${path.basename(file)} names a served document (${entries.length} entries; documents such as ${some.map((d) => d.file).join(', ')})`,
    sections.length > 1
      ? `pick the section of this corpus with --section (${sections.join(', ')}), or serve it without a map`
      : 'check that the map belongs to this index, or serve it without a map',
    { concerns: file },
  );
}

/** The packages by uuid; a uuid served twice is refused. */
export function packageTable(packages: ServedPackage[]): Map<string, ServedPackage> {
  const out = new Map<string, ServedPackage>();
  for (const p of packages) {
    const had = out.get(p.uuid);
    if (had && had.docs[0]?.id !== p.docs[0]?.id)
      throw new KfError('duplicate_package', `package ${p.uuid} would serve both ${had.name} and ${p.name}`, 'give each document its own uuid in the map', {
        concerns: p.uuid,
      });
    out.set(p.uuid, p);
  }
  return out;
}

/** The runner's packages layout for the served packages: {section: {document file: {package_uuid}}}. */
export function packagesJson(packages: ServedPackage[], section: string): Record<string, Record<string, { package_uuid: string; scope_name: string }>> {
  const entries: Record<string, { package_uuid: string; scope_name: string }> = {};
  for (const p of packages) entries[p.perDocument ? p.docs[0].file : p.name] = { package_uuid: p.uuid, scope_name: p.name };
  return { [section]: entries };
}
