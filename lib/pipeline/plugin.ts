/**
 * A plug-in's manifest (issue 16): everything a method (or a stage with offline policies) adds to
 * the harness, in one object. The harness reaches a method only through its manifest: the
 * registries (configurations, retrievers, artifact kinds, offline handlers) are filled from the
 * manifests that lib/pipeline/plugins.ts loads, and nothing else names the method.
 */
import type { OfflineHandler } from '../models/in-process';
import type { ArtifactKind } from './artifact';
import type { RetrieverEntry } from './retriever-entry';
import type { Configuration, PipelineSpec } from './spec';

export interface Plugin {
  /** Short name, unique among the loaded plug-ins ('knowforge', 'dualg', a test's 'toy'). */
  name: string;
  description: string;
  /** Pipeline families (a settings schema and a factory each). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  families?: PipelineSpec<any>[];
  /** Configuration rows over those (or already registered) families. */
  configurations?: Configuration[];
  /** Retrievers, each a search mode of every knowledge base. */
  retrievers?: RetrieverEntry[];
  /** Derived artifact kinds (`kf prepare`, `kf artifacts`). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  artifactKinds?: ArtifactKind<any, any>[];
  /** Offline policies by model role (`task.role`), labelled offline wherever their replies go. */
  offlineHandlers?: Record<string, OfflineHandler<never>>;
}
