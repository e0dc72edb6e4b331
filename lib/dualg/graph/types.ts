/**
 * The dual-tier graph as the graph side keeps it (richer than the GnnGraph the
 * GNN reads, lib/dualg/types.ts): entity names and aliases, the documents each
 * entity occurs in, relation phrases, and the micro facts from tables and images
 * with their alignment to macro entities.
 */

/** Relation kinds every graph has (ids 0..n-1 of `relations`); extracted relation phrases follow. */
export const BUILTIN_RELATIONS = ['mentions', 'co-occurs', 'equivalent', 'part-of'] as const;
export type BuiltinRelation = (typeof BUILTIN_RELATIONS)[number];
export const REL_MENTIONS = 0;
export const REL_COOCCURS = 1;
export const REL_EQUIVALENT = 2;
export const REL_PART_OF = 3;

/** How an entity came into the graph. */
export type EntityOrigin = 'title' | 'text' | 'micro';

export interface GraphDoc {
  id: string;
  title: string;
  /** The entity the document is titled by (-1 when its title gave none). */
  titleEntity: number;
  /** Stemmed content words of the document (relevance of a bridge document to the query's relation words). */
  stems: string[];
}

/** One macro triple: head -relation-> tail, read from document `doc` (sentence text in `context`). */
export interface MacroTriple {
  head: number;
  rel: number;
  tail: number;
  doc: number;
  weight: number;
  /** Stemmed content words of the sentence the triple was read from (without the two names). */
  context?: string;
  /** Stemmed words leading up to the tail name in that sentence (mention edges). */
  lead?: string;
}

/** A micro fact (u, r, v, asset): a table cell (row entity, column, cell) or an image detail. */
export interface MicroFact {
  u: string;
  r: string;
  v: string;
  doc: number;
  /** The fragment holding the asset (table or image). */
  fragmentId: string;
  kind: 'table' | 'image';
  /** Macro entities the two anchors align to (-1 when none). */
  uEntity: number;
  vEntity: number;
}

export interface DualGraphMeta {
  version: number;
  /** Identity of what the graph was built from (the index's input key and generation). */
  source: { id: string; fingerprint: string };
  settings: Record<string, unknown>;
  stats: Record<string, number>;
}

export interface DualGraph {
  meta: DualGraphMeta;
  /** Entity display names, by entity id. */
  entityNames: string[];
  entityKeys: string[];
  entityOrigin: EntityOrigin[];
  /** Alias key -> entity ids (titles' surface variants, extracted names). */
  aliases: Map<string, number[]>;
  /** Relation surface texts by id (BUILTIN_RELATIONS first). */
  relations: string[];
  triples: MacroTriple[];
  docs: GraphDoc[];
  /** Per entity: the documents it occurs in with a weight (1 for the document it titles). */
  entityDocs: { doc: number; weight: number }[][];
  micro: MicroFact[];
}
