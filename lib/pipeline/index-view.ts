/**
 * The knowledge-base view of an opened index (moved from lib/run/index-provider.ts, issue 16: the
 * methods and the runner both open one, so it belongs to the contract, not to the runner).
 */
import * as path from 'node:path';
import { EngineKnowledgeBase } from './engine-knowledge-base';
import type { OpenIndex } from '../index/open';
import type { SearchOptions } from '../index/types';
import { lazyRetrieverModes } from './retrievers';
import type { ModelsConfig } from '../models/config';

/**
 * The knowledge-base view of an opened index: the engine's modes plus every
 * registered retriever (lib/pipeline/retrievers.ts) as an extra mode, created
 * on its first search.
 */
export function engineKnowledgeBase(
  idx: OpenIndex,
  opts: { forced?: SearchOptions; settings?: Record<string, unknown>; models?: ModelsConfig; log?: (line: string) => void; maxTopk?: number } = {},
): EngineKnowledgeBase {
  const { mode, fusion, withContext } = opts.forced ?? {};
  const forced = Object.fromEntries(Object.entries({ mode, fusion, withContext }).filter(([, v]) => v !== undefined));
  const base: EngineKnowledgeBase = new EngineKnowledgeBase(idx.engine, {
    id: `${idx.dir}#${idx.manifest.generation}`,
    name: path.basename(idx.dir),
    docTitle: (id) => idx.docTitle(id),
    forced,
    maxTopk: opts.maxTopk,
    extraModes: lazyRetrieverModes(() => ({
      kb: base,
      indexDir: idx.dir,
      settings: opts.settings ?? {},
      ...(opts.models ? { models: opts.models } : {}),
      log: opts.log,
    })),
  });
  return base;
}
