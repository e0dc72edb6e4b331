/**
 * Knowledge points (spec job 1): atomic units of knowledge, each with a title,
 * a one-sentence summary and the fragment it came from. They are the nodes of
 * the relation graph (relations.ts); retrieval itself ranks fragments.
 *
 * Two paths, one output shape:
 * - LLM (stage 'extraction'): fragments are sent in small batches; the reply is
 *   `{"points": [{"title", "summary", "fragment_id"}]}` (lib/index/offline/tasks.ts),
 *   parsed tolerantly (fences, prose around it, trailing commas, truncation).
 *   A malformed reply or a failed call is RECORDED as an issue and the batch
 *   falls back to offline points, so one bad reply never loses a fragment.
 * - Offline: each sentence of a text/example fragment becomes a point (the same
 *   rule as the offline backend's extraction role, called directly: no JSON round
 *   trip), capped per fragment; an image/table fragment gives one point from
 *   its description. A fragment whose sentences are all too short still gets one
 *   point (its text), so every fragment with text is a node of the graph.
 */
import { fillPrompt } from '../util/prompts';
import type { Fragment } from '../corpus/types';
import type { ChatModel, ChatResponse } from '../model-api/types';
import type { ExtractionTask } from './offline/tasks';
import { extractPoints } from './offline/knowledge-points';
import { findJsonObject } from '../model-api/json-repair';
import { errorMessage } from '../util/errors';
import type { KnowledgePoint } from './types';
import { mapLimit } from '../util/worker-pool';
import { isSetupFailure } from '../model-api/setup-error';

export interface KnowledgePointOptions {
  /** Most points per fragment (default 8). */
  maxPerFragment?: number;
  /** LLM path: most fragments per call (default 6) and most fragment characters per call (default 6,000). */
  batchFragments?: number;
  batchChars?: number;
  /** LLM path: calls in flight at once (default 4; the router's per-endpoint limit applies as well). */
  concurrency?: number;
  /** LLM path: max completion tokens per call (default 2,048). */
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface ExtractionIssue {
  code: 'bad_reply' | 'call_failed' | 'unknown_fragment' | 'no_points';
  fragmentIds: string[];
  message: string;
}

export interface StageUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Calls answered from the model cache (they add no tokens). */
  cacheHits: number;
}

export interface ExtractionResult {
  points: KnowledgePoint[];
  issues: ExtractionIssue[];
  usage: StageUsage;
  /** 'llm' when a non-offline model was used for at least one batch. */
  by: 'llm' | 'offline';
}

export function emptyUsage(): StageUsage {
  return { calls: 0, promptTokens: 0, completionTokens: 0, cacheHits: 0 };
}

export function addUsage(into: StageUsage, res: Pick<ChatResponse, 'usage' | 'cacheHit'> | StageUsage): void {
  if ('calls' in res) {
    into.calls += res.calls;
    into.promptTokens += res.promptTokens;
    into.completionTokens += res.completionTokens;
    into.cacheHits += res.cacheHits;
    return;
  }
  into.calls++;
  if (res.cacheHit) into.cacheHits++;
  else {
    into.promptTokens += res.usage.promptTokens;
    into.completionTokens += res.usage.completionTokens;
  }
}

const DEFAULT_MAX_PER_FRAGMENT = 8;
const MAX_TITLE = 120;
const MAX_SUMMARY = 400;

/** Stable point id: the fragment id and the point's position in it. */
export function pointId(fragmentId: string, n: number): string {
  return `${fragmentId}:kp${n}`;
}

/** The text a point is embedded by (relation recall): its summary, prefixed by a title that adds words. */
export function pointText(p: Pick<KnowledgePoint, 'title' | 'summary'>): string {
  const t = p.title.trim();
  if (!t || p.summary.toLowerCase().includes(t.toLowerCase())) return p.summary;
  return `${t}. ${p.summary}`;
}

function clip(s: string, n: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n - 3)}...` : flat;
}

/** Offline points of one fragment (see the file comment). */
export function offlinePointsOf(f: Fragment, maxPerFragment = DEFAULT_MAX_PER_FRAGMENT): KnowledgePoint[] {
  const text = f.text?.trim() ?? '';
  if (!text) return [];
  const mk = (n: number, title: string, summary: string): KnowledgePoint => ({
    id: pointId(f.id, n),
    fragmentId: f.id,
    docId: f.docId,
    title: clip(title, MAX_TITLE),
    summary: clip(summary, MAX_SUMMARY),
    by: 'offline',
  });
  if (f.kind === 'image' || f.kind === 'table') {
    const first = text.split(/\n/)[0];
    const title = f.label ?? f.caption ?? first;
    return [mk(0, title, f.caption && f.caption !== title ? `${f.caption}. ${text}` : text)];
  }
  const raw = extractPoints({ role: 'extraction', fragments: [{ id: f.id, text, section: f.section }], maxPerFragment }).points;
  if (raw.length) return raw.slice(0, maxPerFragment).map((p, i) => mk(i, p.title, p.summary));
  // Only short sentences (headings, list items): one point for the whole fragment.
  const title = f.section.length ? f.section[f.section.length - 1] : text.split(/\s+/).slice(0, 8).join(' ');
  return [mk(0, title, text)];
}

export function offlineKnowledgePoints(fragments: readonly Fragment[], opts: Pick<KnowledgePointOptions, 'maxPerFragment'> = {}): KnowledgePoint[] {
  const out: KnowledgePoint[] = [];
  for (const f of fragments) out.push(...offlinePointsOf(f, opts.maxPerFragment));
  return out;
}

/** The extraction prompt (prompts/extraction-system.txt; the reply format is the one the offline backend writes). */
export function extractionSystemPrompt(maxPerFragment: number): string {
  return fillPrompt('extraction-system', { max: String(maxPerFragment) });
}

export function extractionUserPrompt(batch: readonly Fragment[]): string {
  const blocks = batch.map((f) => {
    const where = [
      f.section.length ? `section: ${f.section.join(' > ')}` : '',
      f.page !== undefined ? `page ${f.page}` : '',
      f.kind !== 'text' ? `kind: ${f.kind}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    return `### fragment_id: ${f.id}${where ? ` (${where})` : ''}\n${f.text.trim()}`;
  });
  return `Fragments:\n\n${blocks.join('\n\n')}\n\nReturn the JSON object now.`;
}

/** Cut fragments (in order) into batches bounded by count and characters. A fragment longer than the bound goes alone. */
export function batchFragments(fragments: readonly Fragment[], maxFragments: number, maxChars: number): Fragment[][] {
  const out: Fragment[][] = [];
  let cur: Fragment[] = [];
  let chars = 0;
  for (const f of fragments) {
    const n = f.text.length;
    if (cur.length && (cur.length >= maxFragments || chars + n > maxChars)) {
      out.push(cur);
      cur = [];
      chars = 0;
    }
    cur.push(f);
    chars += n;
  }
  if (cur.length) out.push(cur);
  return out;
}

export interface ParsedExtraction {
  points: { title: string; summary: string; fragmentId: string }[];
  /** Why the reply could not be used (undefined = usable). */
  error?: string;
  /** Points that named a fragment not in the batch (dropped). */
  unknownFragments: string[];
}

/**
 * Parse an extraction reply for a batch. Accepts `{"points": [...]}` anywhere in
 * the text (fenced, with prose, repaired when cut off) and, leniently, a bare
 * list or `fragment`/`source` instead of `fragment_id`; a point without a
 * fragment id belongs to the batch's only fragment when there is one.
 */
export function parseExtractionReply(text: string, batchIds: readonly string[]): ParsedExtraction {
  const found = findJsonObject<{ points?: unknown }>(text, (v) => Array.isArray(v.points));
  let list: unknown[] | undefined = found ? (found.value.points as unknown[]) : undefined;
  if (!list) {
    const t = text
      .trim()
      .replace(/^```[a-z]*\s*|```$/g, '')
      .trim();
    if (t.startsWith('[')) {
      try {
        const v = JSON.parse(t);
        if (Array.isArray(v)) list = v;
      } catch {
        /* fall through */
      }
    }
  }
  if (!list) return { points: [], unknownFragments: [], error: `no {"points": [...]} object in the reply (${clip(text, 80) || 'empty reply'})` };
  const ids = new Set(batchIds);
  const points: ParsedExtraction['points'] = [];
  const unknown: string[] = [];
  for (const item of list) {
    if (!item || typeof item !== 'object') continue;
    const o = item as Record<string, unknown>;
    const summary = typeof o.summary === 'string' ? o.summary : typeof o.text === 'string' ? o.text : '';
    const title = typeof o.title === 'string' ? o.title : '';
    if (!summary.trim() && !title.trim()) continue;
    let fid = [o.fragment_id, o.fragmentId, o.fragment, o.source].find((x) => typeof x === 'string') as string | undefined;
    if (fid === undefined && batchIds.length === 1) fid = batchIds[0];
    if (fid === undefined || !ids.has(fid)) {
      unknown.push(String(fid ?? '(none)'));
      continue;
    }
    points.push({ title: title.trim() || clip(summary, 60), summary: (summary.trim() || title).trim(), fragmentId: fid });
  }
  if (!points.length && list.length) return { points, unknownFragments: unknown, error: 'the reply listed points, but none named a fragment of the batch' };
  return { points, unknownFragments: unknown };
}

/**
 * Knowledge points of `fragments`: through `model` (stage 'extraction') when it is
 * a real model, else offline. Output order = fragment order, then point order.
 */
export async function extractKnowledgePoints(
  fragments: readonly Fragment[],
  opts: KnowledgePointOptions & { model?: ChatModel } = {},
): Promise<ExtractionResult> {
  const maxPer = opts.maxPerFragment ?? DEFAULT_MAX_PER_FRAGMENT;
  const withText = fragments.filter((f) => f.text && f.text.trim());
  const usage = emptyUsage();
  if (!opts.model || opts.model.backend === 'offline') {
    return { points: offlineKnowledgePoints(withText, { maxPerFragment: maxPer }), issues: [], usage, by: 'offline' };
  }
  const model = opts.model;
  const issues: ExtractionIssue[] = [];
  const batches = batchFragments(withText, opts.batchFragments ?? 6, opts.batchChars ?? 6000);
  const system = extractionSystemPrompt(maxPer);
  const perBatch = await mapLimit(batches, opts.concurrency ?? 4, async (batch) => {
    const ids = batch.map((f) => f.id);
    const task: ExtractionTask = { role: 'extraction', fragments: batch.map((f) => ({ id: f.id, text: f.text, section: f.section })), maxPerFragment: maxPer };
    let reply: ChatResponse;
    try {
      reply = await model.chat(
        {
          stage: 'extraction',
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: extractionUserPrompt(batch) },
          ],
          json: true,
          temperature: 0,
          maxTokens: opts.maxTokens ?? 2048,
          task: task as unknown as Record<string, unknown>,
        },
        opts.signal,
      );
    } catch (e) {
      if (opts.signal?.aborted || isSetupFailure(e)) throw e;
      issues.push({ code: 'call_failed', fragmentIds: ids, message: `extraction call failed: ${errorMessage(e)}; offline points used instead` });
      return batch.flatMap((f) => offlinePointsOf(f, maxPer));
    }
    addUsage(usage, reply);
    const parsed = parseExtractionReply(reply.text, ids);
    if (parsed.error) {
      issues.push({ code: 'bad_reply', fragmentIds: ids, message: `${parsed.error}; offline points used instead` });
      return batch.flatMap((f) => offlinePointsOf(f, maxPer));
    }
    if (parsed.unknownFragments.length) {
      issues.push({
        code: 'unknown_fragment',
        fragmentIds: ids,
        message: `${parsed.unknownFragments.length} point(s) named fragments outside the batch (${clip(parsed.unknownFragments.join(', '), 120)}); dropped`,
      });
    }
    const out: KnowledgePoint[] = [];
    for (const f of batch) {
      const mine = parsed.points.filter((p) => p.fragmentId === f.id).slice(0, maxPer);
      if (!mine.length) {
        // The model skipped this fragment: keep it in the graph with offline points (recorded).
        issues.push({ code: 'no_points', fragmentIds: [f.id], message: 'the reply had no point for this fragment; offline points used instead' });
        out.push(...offlinePointsOf(f, maxPer));
        continue;
      }
      mine.forEach((p, i) =>
        out.push({ id: pointId(f.id, i), fragmentId: f.id, docId: f.docId, title: clip(p.title, MAX_TITLE), summary: clip(p.summary, MAX_SUMMARY), by: 'llm' }),
      );
    }
    return out;
  });
  return { points: perBatch.flat(), issues, usage, by: 'llm' };
}
