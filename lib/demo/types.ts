/**
 * Data shapes of the demo world: a seeded, fictional world model (entities with
 * attributes, relations and time series), the documents rendered from it (one
 * format-independent tree per document) and the files written for it.
 *
 * A document is a list of sections; each section is exactly ONE PDF page when the
 * document is rendered as PDF, so gold page numbers are known before rendering.
 */
import type { Question } from '../bench/types';

export type PresetName = 'tiny' | 'default' | 'scale';

export interface DemoOptions {
  preset: PresetName;
  seed: string | number;
  /** Total documents, distractors included. */
  documents: number;
  /** How many of `documents` are distractors (sibling-named entities no question is about, and digest documents with near-miss facts). */
  distractors: number;
  /** Questions wanted (fewer come out only when the world is too small to support them; counts say so). */
  questions: number;
  /** Filler paragraphs per document on top of the fact-bearing blocks (three per section/page). */
  paragraphs: number;
}

export type EntityType = 'company' | 'person' | 'city' | 'product' | 'institute';

export type RelationName = 'manufacturer' | 'founder' | 'ceo' | 'headquarters' | 'birthplace' | 'almaMater' | 'location' | 'director';

export interface SeriesPoint {
  year: number;
  value: number;
}

export interface TimeSeries {
  /** revenue (company, million credits), population (city), publications (institute). */
  name: 'revenue' | 'population' | 'publications';
  unit: string;
  points: SeriesPoint[];
}

export interface Entity {
  /** Also the id of the entity's document. */
  id: string;
  type: EntityType;
  name: string;
  /** The invented word the name is built on (shared on purpose by sibling distractors). */
  stem: string;
  /** core = may be asked about; distractor = never in a question or a gold document. */
  role: 'core' | 'distractor';
  attrs: Record<string, number | string | string[]>;
  rel: Partial<Record<RelationName, string>>;
  series?: TimeSeries;
  /** Distractor built as a near-miss of this core entity (same stem, close values). */
  siblingOf?: string;
}

export interface Relation {
  from: string;
  rel: RelationName;
  to: string;
}

export type FactModality = 'text' | 'table' | 'image';

/** A drawing to render into a PNG. Every string drawn is listed by drawnTextOf(). */
export type ChartSpec =
  | { kind: 'bar' | 'line'; title: string; xLabel: string; yLabel: string; points: { label: string; value: number; text: string }[] }
  | { kind: 'diagram'; title: string; center: string; centerShape: 'box' | 'device'; labels: string[] };

export type DemoBlock =
  | { kind: 'paragraph'; text: string }
  | { kind: 'example'; text: string }
  | { kind: 'table'; label: string; caption: string; header: string[]; rows: string[][] }
  | { kind: 'figure'; label: string; caption: string; alt: string; asset: string; chart: ChartSpec };

export interface DemoSection {
  heading: string;
  /** 1-based; equals the PDF page this section is printed on (one section per page). */
  page: number;
  blocks: DemoBlock[];
  /** Filler sections carry no fact any question needs. */
  filler?: boolean;
}

export type DemoFormat = 'markdown' | 'html' | 'pdf';

export interface DemoDoc {
  /** Path relative to the corpus root without extension (documents sit in the corpus root). */
  id: string;
  format: DemoFormat;
  title: string;
  /** The entity the document describes; absent for digest documents. */
  entity?: string;
  role: 'core' | 'distractor';
  sections: DemoSection[];
}

/** Where one fact of one entity is stated: the evidence of a question hop. */
export interface FactLocation {
  entity: string;
  key: string;
  /** The answer string as printed (e.g. "1,240", "Kelmora", ["teal","amber"]). */
  value: string | string[];
  doc: string;
  page: number;
  modality: FactModality;
  /** The sentence, table row or drawn label that states it. */
  text: string;
  /** For image facts: the asset (corpus-relative) whose drawn text states it. */
  asset?: string;
  /** Section index and block index inside the document (for fragment mapping). */
  section: number;
  block: number;
}

export interface DemoWorld {
  options: DemoOptions;
  entities: Entity[];
  relations: Relation[];
  docs: DemoDoc[];
  /** key `${entityId}.${factKey}` -> where the fact is stated. */
  facts: Record<string, FactLocation>;
  questions: Question[];
  /** Questions asked for but not producible from a world this size. */
  questionShortfall: number;
}

export interface DemoImageRecord {
  /** Corpus-relative path, e.g. `assets/zorvan-industries-fig1.png`. */
  path: string;
  doc: string;
  label: string;
  caption: string;
  page?: number;
  width: number;
  height: number;
  /** Every string drawn into the PNG, in drawing order. */
  drawnText: string[];
}

export interface DemoManifest {
  generator: string;
  /** Bumped when the generator's output changes for the same options. */
  version: number;
  /** Hash of the generator's source (lib/demo/*.ts): a world written by other code is regenerated. */
  generatorHash: string;
  options: DemoOptions;
  optionsHash: string;
  seed: string;
  counts: {
    documents: number;
    coreDocuments: number;
    distractorDocuments: number;
    byFormat: Record<string, number>;
    entities: Record<string, number>;
    pdfPages: number;
    tables: number;
    images: number;
    examples: number;
    paragraphs: number;
    questions: number;
    questionShortfall: number;
    byHops: Record<string, number>;
    byAnswerFormat: Record<string, number>;
    byModality: Record<string, number>;
    byType: Record<string, number>;
  };
  /** sha256 of every file written, keyed by path relative to the output dir (manifest.json excluded). */
  files: Record<string, string>;
  images: DemoImageRecord[];
}
