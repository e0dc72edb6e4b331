/**
 * `--kb remote:<uuid>` (and `index.kb` in an experiment): a hosted knowledge
 * base instead of a local index. The server root and account key come from
 * the environment (KF_KB_BASE_URL, KF_KB_API_KEY) so the key is never in a
 * file, a record, a trace or a command line; what a run records is the
 * reference `remote:<uuid>` and the server root.
 *
 * `remote:per-document` reads one package per document (MMLongBench-Doc's hosted layout): the package
 * of each document comes from the map file KF_KB_PACKAGES (the runner's data/kb_packages.json, or
 * {document: uuid}); a question's view is its document's package.
 */
import type { SearchHit, SearchOptions, SearchResult } from '../index/types';
import type { KbMode } from '../pipeline/knowledge-base';
import { KfError } from '../util/errors';
import { RemoteKbClient, remoteKbOptionsFromEnv } from './client';
import { RemoteKnowledgeBase, type RemoteKnowledgeBaseOptions } from './knowledge-base';
import { readPackageMap } from './package-map';

const PREFIX = 'remote:';
/** The reference of per-document packages (their map from KF_KB_PACKAGES). */
export const PER_DOCUMENT_REF = 'remote:per-document';

/** True when `ref` names a hosted knowledge base (`remote:<uuid>`). */
export function isRemoteKbRef(ref: string | undefined): ref is string {
  return typeof ref === 'string' && ref.startsWith(PREFIX);
}

/** The package id of `remote:<uuid>`; a clear error for anything else. */
export function remoteKbUuid(ref: string): string {
  const uuid = ref.startsWith(PREFIX) ? ref.slice(PREFIX.length).trim() : '';
  // The runner's package ids carry a colon (resource_package:<hex>).
  if (!/^[\w.:-]+$/.test(uuid))
    throw new KfError(
      'bad_kb',
      `--kb ${ref}: not a hosted knowledge-base reference`,
      'write it as remote:<package uuid> (e.g. --kb remote:resource_package:0f3c...)',
      {
        concerns: ref,
      },
    );
  return uuid;
}

/** Open `remote:<uuid>` with the environment's server and key. */
export function openRemoteKb(ref: string, opts: RemoteKnowledgeBaseOptions = {}, env: NodeJS.ProcessEnv = process.env): RemoteKnowledgeBase {
  if (ref.trim() === PER_DOCUMENT_REF) return openPerDocument(opts, env);
  const uuid = remoteKbUuid(ref);
  return new RemoteKnowledgeBase(new RemoteKbClient(remoteKbOptionsFromEnv(uuid, env)), opts);
}

/** `remote:per-document`: the map from KF_KB_PACKAGES; the root view reads the first package (card, manifest). */
function openPerDocument(opts: RemoteKnowledgeBaseOptions, env: NodeJS.ProcessEnv): RemoteKnowledgeBase {
  const file = env.KF_KB_PACKAGES;
  if (!file)
    throw new KfError(
      'kb_no_packages',
      `--kb ${PER_DOCUMENT_REF} needs the map of document packages`,
      "set KF_KB_PACKAGES to the runner's data/kb_packages.json (or a JSON {document: package uuid})",
    );
  const entries = readPackageMap(file, env.KF_KB_PACKAGES_SECTION || undefined);
  const packages = new Map(entries.map((e) => [e.doc, e.uuid]));
  return new RemoteKnowledgeBase(new RemoteKbClient(remoteKbOptionsFromEnv(entries[0].uuid, env)), { ...opts, packages });
}

const NO_TIMINGS = { embedMs: 0, bm25Ms: 0, hnswMs: 0, fusionMs: 0, expansionMs: 0, contextMs: 0, roundMs: 0 };

/** A Retriever over the hosted search (the one-shot pipelines and the runner's retriever slot read it). */
export function remoteRetriever(kb: RemoteKnowledgeBase): { search(query: string, opts?: SearchOptions): Promise<SearchResult> } {
  return {
    async search(query: string, opts: SearchOptions = {}): Promise<SearchResult> {
      const r = await kb.search(query, { k: opts.topk, mode: opts.mode as KbMode | undefined, docIds: opts.docIds });
      const hits: SearchHit[] = r.hits;
      return { query, hits, timings: { ...NO_TIMINGS, roundMs: r.timings?.totalMs ?? 0 } };
    },
  };
}

/** What a run manifest says about the hosted knowledge base (never the key). */
export function remoteKbInfo(kb: RemoteKnowledgeBase): {
  dir: string;
  remote: { uuid: string; baseUrl: string; name?: string; documents?: number; packages?: number };
} {
  const card = kb.client.card();
  const name = typeof card.name === 'string' ? card.name : typeof card.title === 'string' ? card.title : undefined;
  const packages = kb.packageCount();
  if (packages) return { dir: PER_DOCUMENT_REF, remote: { uuid: PER_DOCUMENT_REF, baseUrl: kb.client.baseUrl, packages } };
  return { dir: kb.id, remote: { uuid: kb.client.uuid, baseUrl: kb.client.baseUrl, ...(name ? { name } : {}), documents: kb.documentCount() } };
}
