/**
 * What the DualG-MRAG generator receives (paper 4.4 / spec step 7): the decoded
 * paths verbalised step by step with the snippet of the passage each step was
 * read from (paths/serialize.ts), and the raw images of the retrieved evidence
 * up to the visual budget k_v of the query pattern, as image parts for the
 * vision-capable synthesizer. The paper's generator itself is paper-generator.ts
 * (one unified prompt); two earlier generators stay as labelled variant rows,
 * never as the paper's: 'checked' (these snippets and images through
 * KnowForge's synthesizer, guardrail and format checker) and 'text'
 * (entity-relation lines, no images).
 */
import * as fs from 'node:fs';
import type { ContentPart } from '../model-api/types';
import type { SearchHit } from '../index/types';
import { mediaFile } from '../answer/vision';
import type { KnowledgeBase } from '../pipeline/knowledge-base';
import type { EvidencePath } from './paths/evidence-path';
import { serializePaths } from './paths/serialize';

export type ImagePart = Extract<ContentPart, { type: 'image' }>;

export const GENERATORS = ['paper', 'checked', 'text'] as const;
export type GeneratorName = (typeof GENERATORS)[number];

/** How each generator is named in labels. */
export const GENERATOR_LABEL: Record<GeneratorName, string> = {
  paper: 'generator: unified prompt, path snippets + raw images up to k_v (paper)',
  checked: "generator: path snippets + images through KnowForge's synthesizer, guardrail and checker (variant, not the paper)",
  text: 'generator: text-only path lines (variant, not the paper)',
};

/** The paths section with source snippets: the text of a step's fragment, else its document's best hit. */
export function pathSection(paths: readonly EvidencePath[], hits: readonly SearchHit[], kb: KnowledgeBase, maxPaths: number): string {
  if (!paths.length) return '';
  const docText = (docId: string) => hits.find((h) => h.docId === docId)?.text ?? kb.fragment(`${docId}#0`)?.text;
  const withSnippets = paths.map((p) => ({
    ...p,
    steps: p.steps.map((s) => {
      const own = s.source?.fragmentId ? kb.fragment(s.source.fragmentId)?.text : undefined;
      return own && s.source && !s.source.snippet ? { ...s, source: { ...s.source, snippet: own } } : s;
    }),
  }));
  const text = serializePaths(withSnippets, { maxPaths, docText });
  return `Reasoning paths found in the knowledge graph (entity -relation-> entity [source]: snippet):\n${text}`;
}

/**
 * Largest image file sent as an image part (bytes; setting `maxImageBytes`): 4 MiB, fixed a priori -- a part
 * travels base64-inlined (4/3 of its size) and OpenAI-compatible VLM servers commonly refuse requests of a few
 * MB per image; a larger file is skipped and the skip is traced, never resized silently.
 */
export const MAX_IMAGE_BYTES = 4 * 1024 * 1024;

export interface RawImages {
  images: { fragmentId: string; part: ImagePart }[];
  /** Image fragments of the evidence whose file was larger than the cap. */
  oversized: { fragmentId: string; bytes: number }[];
  /** Image fragments whose file the knowledge base could not hand over. */
  missing: string[];
}

/**
 * The raw images of the evidence, best first (image hits, then the images the paths passed through), fetched
 * through the knowledge-base view (a local index's file, or a hosted / served base's download: answer/vision.ts
 * mediaFile); at most `budget` (k_v), each at most `maxBytes`. Image fragments without a file cannot be sent and
 * are skipped (their description stays in the pool text).
 */
export function rawImages(
  hits: readonly SearchHit[],
  paths: readonly EvidencePath[],
  kb: KnowledgeBase,
  budget: number,
  maxBytes = MAX_IMAGE_BYTES,
): RawImages {
  const out: RawImages = { images: [], oversized: [], missing: [] };
  if (budget <= 0) return out;
  const ids = [
    ...hits.flatMap((h) => [h.fragmentId, ...(h.media ?? []).map((m) => m.fragmentId)]),
    ...paths.flatMap((p) => p.steps.map((s) => s.source?.fragmentId ?? '')),
  ];
  for (const id of new Set(ids)) {
    if (out.images.length >= budget) break;
    const f = id ? kb.fragment(id) : undefined;
    if (!f || f.kind !== 'image' || !f.media) continue;
    const file = mediaFile(kb, f);
    if (!file) {
      out.missing.push(id);
      continue;
    }
    const bytes = fs.statSync(file).size;
    if (bytes > maxBytes) out.oversized.push({ fragmentId: id, bytes });
    else out.images.push({ fragmentId: id, part: { type: 'image', path: file, mime: f.media.mime } });
  }
  return out;
}
