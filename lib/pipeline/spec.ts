/**
 * The pipeline contract (issue 9): a PipelineSpec per configuration FAMILY with a
 * typed settings schema (zod), and configurations as DATA: a configuration
 * (S4, M5, P1, an L+R cap...) is a named row of preset settings over a family.
 * Experiment configs name a configuration; their `pipeline.settings` are merged
 * over the preset and validated against the family's schema when the config
 * LOADS, so an unknown or ill-typed key fails before any question runs, naming
 * the key and the file.
 */
import type { z } from 'zod';
import type { Pipeline, PipelineContext, RetrievalLog } from './types';

export interface PipelineSpec<S extends z.ZodType = z.ZodType> {
  /** Family name, e.g. 'knowforge-one-shot', 'knowforge-agents', 'dualg'. */
  family: string;
  description: string;
  /**
   * Settings schema: a strict object (unknown keys are errors) whose fields have
   * defaults, so `settings.parse({})` gives the family's defaults.
   */
  settings: S;
  /** Whether a configuration of this family needs a knowledge base (index). */
  needsIndex(settings: z.output<S>): boolean;
  /** Derived artifact kinds a configuration needs (beyond the index), e.g. ['dualg-graph', 'gnn-checkpoint']. */
  artifacts?(settings: z.output<S>): string[];
  create(name: string, settings: z.output<S>): Pipeline;
  /**
   * The retrieval-only mode of a configuration (`kf eval retrieval --config`): the searches it
   * makes for one question, nothing read or answered. Families without one cannot be scored
   * that way (the command says so).
   */
  retrieve?(name: string, settings: z.output<S>, ctx: PipelineContext): Promise<RetrievalOnly>;
}

/** What a family's retrieval-only mode gives back for one question. */
export interface RetrievalOnly {
  log: RetrievalLog;
  /** Every search, tagged with who searched (the bridge judge's are counted apart). */
  searches: { query: string; by: string; hits: { docId: string }[] }[];
}

/** A configuration of a paper: a name, a family and the settings that make it that configuration. */
export interface Configuration {
  name: string;
  family: string;
  description: string;
  /** Preset settings (validated against the family's schema at registration). */
  settings: Record<string, unknown>;
  /** Paper it comes from ('knowforge' | 'dualg' | 'test' ...). */
  paper?: string;
}
