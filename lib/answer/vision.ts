/**
 * The vision stage behind read_media (spec job 5): ONE asset and ONE question
 * per model call; the answer says where in the image and gives a one-line
 * answer, with no outside knowledge. Tables with parsed rows are read as text
 * (every cell is exact); images go as image parts when their file is found.
 * The offline backend answers the same request from the asset's OCR text.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Fragment, MediaAsset, TableData } from '../corpus/types';
import type { ChatModel, ContentPart } from '../model-api/types';
import type { VisionTask } from './tasks';
import { readIndexManifest } from '../index/open';
import type { KnowledgeBase } from '../pipeline/knowledge-base';
import { fillPrompt } from '../util/prompts';

/** Reads one media fragment for one question (the read_media tool's engine). */
export type ReadMediaFn = (fragmentId: string, question: string) => Promise<{ text: string; backend?: string }>;

export interface VisionOptions {
  /** Absolute path of a media asset (corpus root / index assets folder), when the file can be found. */
  assetPath?: (asset: MediaAsset, fragment: Fragment) => string | undefined;
  questionId?: string;
  signal?: AbortSignal;
  /** Most table rows sent in one call. */
  maxRows?: number;
}

const resolvers = new Map<string, VisionOptions['assetPath'] | undefined>();

/**
 * Where the media files of an engine knowledge base live, read from its index manifest: PDF-extracted
 * assets under <index>/assets, source files under the corpus root. The engine view's id is
 * `<index dir>#<generation>` (lib/run/index-provider.ts); another view gets no resolver (descriptions only).
 */
export function indexAssetResolver(kbId: string): VisionOptions['assetPath'] | undefined {
  if (resolvers.has(kbId)) return resolvers.get(kbId);
  let resolver: VisionOptions['assetPath'] | undefined;
  try {
    const dir = kbId.split('#')[0];
    const m = dir && fs.existsSync(dir) ? readIndexManifest(dir) : undefined;
    const corpusRoot = m?.corpus.kind === 'directory' ? m.corpus.path : undefined;
    if (m) {
      resolver = (asset) => {
        if (path.isAbsolute(asset.path)) return asset.path;
        if (asset.origin === 'pdf-embedded' || asset.origin === 'pdf-render') return path.join(dir, 'assets', asset.path);
        return corpusRoot ? path.resolve(corpusRoot, asset.path) : undefined;
      };
    }
  } catch {
    resolver = undefined; // not an index folder: no files to show
  }
  resolvers.set(kbId, resolver);
  return resolver;
}

/** Table rows as "header: cell; header: cell" lines (what the reader and the offline vision role read). */
export function tableLines(t: TableData, maxRows = 60): string[] {
  const head = t.header.map((h, i) => h || `column ${i + 1}`);
  const lines = t.rows.slice(0, maxRows).map((r) => r.map((c, i) => `${head[i] ?? `column ${i + 1}`}: ${c}`).join('; '));
  if (t.rows.length > maxRows) lines.push(`(${t.rows.length - maxRows} more rows not shown)`);
  return lines;
}

/**
 * The file of a fragment's media through the knowledge-base view, whatever serves it: a local index's file (its
 * assets folder or the corpus root), else the view's asset() -- a hosted or served base downloads it once into a
 * temporary folder. Undefined when no file can be had.
 */
export function mediaFile(kb: KnowledgeBase, f: Fragment, assetPath?: VisionOptions['assetPath']): string | undefined {
  if (!f.media) return undefined;
  const local = (assetPath ?? indexAssetResolver(kb.id))?.(f.media, f);
  if (local && fs.existsSync(local)) return local;
  const fetched = kb.asset(f.id);
  return fetched && path.isAbsolute(fetched.path) && fs.existsSync(fetched.path) ? fetched.path : undefined;
}

export function makeReadMedia(model: ChatModel, kb: KnowledgeBase, opts: VisionOptions = {}): ReadMediaFn {
  return async (fragmentId, question) => {
    const f = kb.fragment(fragmentId);
    if (!f) return { text: `Where: nowhere.\nAnswer: no fragment ${fragmentId}.` };
    const caption = f.caption ? `\nCaption: ${f.caption}` : '';
    let content: string | ContentPart[];
    const task: VisionTask = { role: 'vision', question, caption: f.caption, fragmentId };
    if (f.table && f.table.rows.length) {
      const lines = tableLines(f.table, opts.maxRows);
      content = fillPrompt('read-table', { label: f.label ?? fragmentId, caption, table: lines.join('\n'), question });
      task.ocrText = lines.join('\n');
    } else {
      // A knowledge base without local files (a hosted one) hands the file over through asset(): downloaded once.
      const file = mediaFile(kb, f, opts.assetPath);
      const prompt = fillPrompt('read-media', { kind: f.kind === 'table' ? 'table image' : 'image', label: f.label ? ` (${f.label})` : '', caption, question });
      const usable = file && fs.existsSync(file);
      content = usable
        ? [
            { type: 'text', text: prompt },
            { type: 'image', path: file, mime: f.media?.mime },
          ]
        : `${prompt}\n\n(The image file is not available; its stored description: ${f.text})`;
      if (usable) task.image = { path: file, mime: f.media?.mime };
      // OCR text stored by the index stands in for the pixels offline; without it, the description
      // (the offline backend never OCRs at question time; a real model gets the image).
      task.ocrText = f.ocrText ?? (usable && model.backend !== 'offline' ? undefined : f.text);
    }
    const res = await model.chat(
      { stage: 'vision', messages: [{ role: 'user', content }], temperature: 0, maxTokens: 256, questionId: opts.questionId, task },
      opts.signal,
    );
    return { text: res.text.trim(), backend: res.backend };
  };
}
