/**
 * `--kb remote:<uuid>` (and `index.kb` in an experiment): a hosted knowledge
 * base instead of a local index. The server root and account key come from
 * the environment (KF_KB_BASE_URL, KF_KB_API_KEY) so the key is never in a
 * file, a record, a trace or a command line; what a run records is the
 * reference `remote:<uuid>` and the server root.
 */
import type { SearchHit, SearchOptions, SearchResult } from '../index/types';
import type { KbMode } from '../pipeline/knowledge-base';
import { KfError } from '../util/errors';
import { RemoteKbClient, remoteKbOptionsFromEnv } from './client';
import { RemoteKnowledgeBase, type RemoteKnowledgeBaseOptions } from './knowledge-base';

const PREFIX = 'remote:';

/** True when `ref` names a hosted knowledge base (`remote:<uuid>`). */
export function isRemoteKbRef(ref: string | undefined): ref is string {
  return typeof ref === 'string' && ref.startsWith(PREFIX);
}

/** The package id of `remote:<uuid>`; a clear error for anything else. */
export function remoteKbUuid(ref: string): string {
  const uuid = ref.startsWith(PREFIX) ? ref.slice(PREFIX.length).trim() : '';
  if (!/^[\w.-]+$/.test(uuid))
    throw new KfError('bad_kb', `--kb ${ref}: not a hosted knowledge-base reference`, 'write it as remote:<package uuid> (e.g. --kb remote:0f3c...)', {
      concerns: ref,
    });
  return uuid;
}

/** Open `remote:<uuid>` with the environment's server and key. */
export function openRemoteKb(ref: string, opts: RemoteKnowledgeBaseOptions = {}, env: NodeJS.ProcessEnv = process.env): RemoteKnowledgeBase {
  const uuid = remoteKbUuid(ref);
  return new RemoteKnowledgeBase(new RemoteKbClient(remoteKbOptionsFromEnv(uuid, env)), opts);
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
export function remoteKbInfo(kb: RemoteKnowledgeBase): { dir: string; remote: { uuid: string; baseUrl: string; name?: string; documents?: number } } {
  const card = kb.client.card();
  const name = typeof card.name === 'string' ? card.name : typeof card.title === 'string' ? card.title : undefined;
  return { dir: kb.id, remote: { uuid: kb.client.uuid, baseUrl: kb.client.baseUrl, ...(name ? { name } : {}), documents: kb.documentCount() } };
}
