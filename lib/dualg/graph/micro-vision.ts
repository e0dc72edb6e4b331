/**
 * Micro facts of images from a VLM (the `vision` stage; graph setting microImages = "vision"):
 * spec "Micro graph T_m": (u, r, v, asset) facts whose relation carries the visual detail
 * (spatial relation, attribute, interaction). One call per image asset (or table known only as an image), with the file
 * and prompts/dualg-micro-vision.txt; the reply {"facts": [{subject, relation, object}]} is read
 * with the model layer's JSON repair. The model layer caches replies (the image by content hash).
 *
 * The offline facts (OCR tokens, chart labels, captions, micro.ts) are always kept: the VLM's
 * facts are added to them. A reply that cannot be read is recorded as a per-asset error and
 * adds nothing; a failing call (endpoint down, refused key) stops the build, so a graph built
 * "with vision" is never silently an OCR-only graph.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Fragment, MediaAsset } from '../../corpus/types';
import { parseJsonLoose, stripCodeFences } from '../../model-api/json-repair';
import type { ChatModel, ContentPart } from '../../model-api/types';
import { fillPrompt } from '../../util/prompts';
import type { MicroVisionTask } from '../offline/tasks';
import type { RawMicroFact } from './micro';

/** Most facts taken from one image (the prompt asks for at most this many). */
export const VISION_MAX_FACTS = 24;
const MAX_NAME = 120;
const MAX_RELATION = 60;

/** What the vision parse of one build did: assets sent, facts added, and each asset whose reply was unusable. */
export interface VisionReport {
  /** Image fragments (and tables known only as an image) seen. */
  assets: number;
  /** Image fragments sent to the model (the others had no image file). */
  sent: number;
  /** Facts added (after removing those the offline rules already gave). */
  facts: number;
  errors: { fragmentId: string; error: string }[];
  /** Replies per backend that gave them ("offline" = the OCR stand-in, never a model's parse). */
  backends: Record<string, number>;
}

/** The vision parser the graph builder calls once per document (build.ts `vision`). */
export interface VisionFactSource {
  /** Extra facts for the image fragments of one document; `known` (the offline facts) are not repeated. */
  factsOf(frags: Fragment[], docTitle: string, known: RawMicroFact[]): Promise<RawMicroFact[]>;
  readonly report: VisionReport;
}

export interface VisionFactOptions {
  /** Absolute path of an image asset (e.g. indexAssetResolver of the index folder); undefined when not found. */
  assetPath?: (asset: MediaAsset, fragment: Fragment) => string | undefined;
  signal?: AbortSignal;
  maxFacts?: number;
}

export type ParsedVisionFacts = { triples: [string, string, string][]; error?: undefined } | { triples: []; error: string };

/** A fact field as text: strings, and numbers (a chart value given as 47 rather than "47"). */
const clean = (x: unknown, max: number): string =>
  typeof x === 'string' ? x.replace(/\s+/g, ' ').trim().slice(0, max) : typeof x === 'number' && Number.isFinite(x) ? String(x) : '';

/** One fact entry: {subject, relation, object} (also accepted: a [s, r, o] triple). */
function tripleOf(x: unknown): [string, string, string] | undefined {
  const o = x as Record<string, unknown>;
  const [s, r, v] = Array.isArray(x) && x.length === 3 ? x : x && typeof x === 'object' ? [o.subject, o.relation, o.object] : [];
  const t: [string, string, string] = [clean(s, MAX_NAME), clean(r, MAX_RELATION), clean(v, MAX_NAME)];
  return t.every(Boolean) ? t : undefined;
}

/** Read a reply: {"facts": [...]} or a bare list, repaired when cut off or fenced. An unreadable reply is an error. */
export function parseVisionFacts(text: string, max = VISION_MAX_FACTS): ParsedVisionFacts {
  const body = stripCodeFences(text).trim();
  const start = body.search(/[[{]/);
  const parsed = start < 0 ? undefined : parseJsonLoose(body.slice(start));
  const v = parsed?.value as { facts?: unknown } | unknown[] | undefined;
  const list = Array.isArray(v) ? v : Array.isArray(v?.facts) ? v.facts : undefined;
  const head = JSON.stringify(text.slice(0, 80));
  if (!list) return { triples: [], error: `reply is not {"facts": [...]}: ${head}` };
  const triples = list.map(tripleOf).filter((t): t is [string, string, string] => t !== undefined);
  if (list.length && !triples.length) return { triples: [], error: `none of the ${list.length} facts has subject, relation and object: ${head}` };
  return { triples: triples.slice(0, max) };
}

/** Assets a VLM can add to: images, and tables known only as an image (no parsed rows: their cells are not facts yet). */
function visualAsset(f: Fragment): 'image' | 'table' | undefined {
  if (f.kind === 'image') return 'image';
  return f.kind === 'table' && !f.table?.rows.length && f.media ? 'table' : undefined;
}

const factKey = (f: { u: string; r: string; v: string; fragmentId: string }) => [f.u, f.r, f.v, f.fragmentId].map((x) => x.toLowerCase()).join('\u0000');

/** The request for one image: the prompt and the image, plus the task the offline backend reads instead. */
function visionRequest(f: Fragment, docTitle: string, file: string, max: number) {
  const prompt = fillPrompt('dualg-micro-vision', {
    label: f.label ? ` (${f.label})` : '',
    title: docTitle,
    caption: f.caption ? `\nIts caption: ${f.caption}` : '',
    max: String(max),
  });
  const content: ContentPart[] = [
    { type: 'text', text: prompt },
    { type: 'image', path: file, mime: f.media?.mime },
  ];
  const task: MicroVisionTask = { role: 'micro-vision', fragmentId: f.id, docTitle, label: f.label, caption: f.caption, ocrText: f.ocrText, maxFacts: max };
  return { content, task };
}

/** A VisionFactSource over a chat model routed to the `vision` stage. */
export function visionFactsFromModel(model: ChatModel, opts: VisionFactOptions = {}): VisionFactSource {
  const max = opts.maxFacts ?? VISION_MAX_FACTS;
  const report: VisionReport = { assets: 0, sent: 0, facts: 0, errors: [], backends: {} };
  const factsOf = async (frags: Fragment[], docTitle: string, known: RawMicroFact[]): Promise<RawMicroFact[]> => {
    const seen = new Set(known.map(factKey));
    const out: RawMicroFact[] = [];
    for (const f of frags) {
      const kind = visualAsset(f);
      if (!kind) continue;
      report.assets++;
      const file = f.media ? opts.assetPath?.(f.media, f) : undefined;
      if (!file || !fs.existsSync(file)) continue; // nothing to show the model: the offline facts stand alone
      report.sent++;
      const { content, task } = visionRequest(f, docTitle, file, max);
      const res = await model.chat({ stage: 'vision', messages: [{ role: 'user', content }], temperature: 0, json: true, maxTokens: 1200, task }, opts.signal);
      report.backends[res.backend] = (report.backends[res.backend] ?? 0) + 1;
      const parsed = parseVisionFacts(res.text, max);
      if (parsed.error) report.errors.push({ fragmentId: f.id, error: parsed.error });
      for (const [u, r, v] of parsed.triples) {
        const fact: RawMicroFact = { u, r, v, fragmentId: f.id, kind };
        if (seen.has(factKey(fact))) continue;
        seen.add(factKey(fact));
        out.push(fact);
      }
    }
    report.facts += out.length;
    return out;
  };
  return { factsOf, report };
}

/** The file beside a stored graph that lists what the vision parse did, each unusable reply with its asset. */
export const VISION_REPORT_FILE = 'vision-report.json';

export function writeVisionReport(dir: string, report: VisionReport): void {
  fs.writeFileSync(path.join(dir, VISION_REPORT_FILE), JSON.stringify(report, null, 1) + '\n');
}
