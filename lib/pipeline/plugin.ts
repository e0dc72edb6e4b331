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
import type { CommandSpec } from './command';
import type { TraceSection } from './trace-section';
import type { PublishedNumber } from './published-number';
import type { BenchmarkSpec } from '../bench/spec';

/**
 * What a series is compared on. 'retrieval': its names are retrievers (registered by a loaded
 * plug-in), searched model-free for R@k (notebooks 42, 43, 50) or put under one reader (40).
 * 'qa': its names are configuration rows, each run whole by `kf run` for EM / F1 (20, 24, 40).
 */
export type NotebookTopic = 'retrieval' | 'qa';

/**
 * A series a plug-in adds to the comparison notebooks: which of its retrievers or configuration
 * rows appear there, in the order given. The notebooks list these (lib/report/notebook-series.ts)
 * instead of naming a method's retrievers or rows themselves.
 */
export interface NotebookSeries {
  topic: NotebookTopic;
  /**
   * Which table of the topic the series joins, when a topic has several: 'main' (the default: the
   * method's main comparison), or a named one such as 'index-factors' or 'beside-retrievers'.
   */
  set?: string;
  /** Retriever names (topic 'retrieval') or configuration names (topic 'qa'). */
  names: string[];
  /** Display label per name, where it differs from the name. */
  labels?: Record<string, string>;
}

/** A command a plug-in adds: its words (for a load failure) and how to load its spec(s). */
export interface PluginCommand {
  name: string;
  load(): CommandSpec | CommandSpec[];
}

export interface Plugin {
  /** Short name, unique among the loaded plug-ins ('knowforge', 'dualg', a test's 'toy'). */
  name: string;
  description: string;
  /**
   * Where a built-in manifest loads among the built-ins (lower first; none: after those with one,
   * by path). Load order is the order `kf models` lists offline roles, the trace prints sections
   * and the notebooks list series. Modules of KF_PLUGINS load after the built-ins, as named there.
   */
  order?: number;
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
  /** What the method contributes to the comparison notebooks (see NotebookSeries). */
  notebookSeries?: NotebookSeries[];
  /**
   * What else it offers notebooks: the functions and tables a notebook calls as
   * `kf.method('<name>').<export>` (lib/pipeline/method-kit.ts), e.g. its report helpers. A function
   * that requires the kit's module, so loading the manifest loads none of it (as `commands`); add the
   * kit's type to `MethodKits` there to type it by name.
   */
  notebookKit?: () => object;
  /**
   * Its `kf` commands (lib/<method>/commands/), each loaded when the CLI starts: `load` requires the
   * module, so a command's modules load only with the CLI and one that cannot load (a native addon
   * missing) is reported by name without taking the others down.
   */
  commands?: PluginCommand[];
  /** Its lines of the printed trace (`kf trace`, `kf ask`). */
  trace?: TraceSection;
  /** Folder of its prompt templates (`<name>.txt`), read after prompts/ (absolute path). */
  promptsDir?: string;
  /** Folder of its demo-world experiments (`kf ask --config <name>` looks there; absolute path). */
  demoExperiments?: string;
  /** Its benchmarks (loader, scorer, files): their names join the known ones (experiments, --bench) when it loads. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  benchmarks?: BenchmarkSpec<any>[];
  /** Its paper's published numbers (notebooks and reports draw them beside the runs). */
  publishedNumbers?: PublishedNumber[];
}
