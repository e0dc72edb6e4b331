/**
 * The Deep Reader's tools (spec job 5): they only READ what is already known
 * (fragments named by id in the pool). No search tool: a reader that kept one
 * defected to searching. Every result is logged as a reading note that is
 * appended to the evidence pool for the synthesizer.
 */
import type { AgentTool } from '../../agents/tools';
import { KB_LIMITS } from '../../pipeline/knowledge-base';
import { mapLimit } from '../../util/worker-pool';
import { clip, type KfToolContext, type ReadLogEntry } from './context';
import { runnerFragmentContext, runnerReadMedia, type ReadMediaEntry } from './read-listing';
import { runnerMediaContext } from './media-context-listing';

type Tool = AgentTool<KfToolContext>;

/**
 * Most assets one read_media call opens by default (each is its own vision call): the released runner's 40,
 * so a counting question can pass a whole list_media listing at once. Configurations may lower it
 * (setting readMediaMax; the harness's earlier cap was 3). At most READ_CONCURRENCY vision calls at a time.
 */
export const MAX_MEDIA_PER_READ = 40;
export const READ_CONCURRENCY = 4;
const NOTE_CHARS = 600;

/** "Where: ...\nAnswer: ..." -> "<answer> (where: ...)"; other replies unchanged. */
export function answerLine(text: string): string {
  const answer = /^\s*Answer:\s*(.+)$/im.exec(text)?.[1]?.trim();
  const where = /^\s*Where:\s*(.+)$/im.exec(text)?.[1]?.trim();
  return answer ? `${answer}${where ? ` (where: ${where.replace(/\.$/, '')})` : ''}` : text;
}

function notFound(id: unknown) {
  return { error: { code: 'not_found', detail: `no fragment ${String(id)} in this knowledge base; use the ids shown in the materials`, recoverable: true } };
}

export const fragmentContext: Tool = {
  name: 'fragment_context',
  description:
    `Read a fragment in full (up to ${KB_LIMITS.hitChars} characters) with its neighbours (up to ${KB_LIMITS.neighbourChars} each); ` +
    'for a figure or table, its full description.',
  parameters: {
    type: 'object',
    properties: { fragment_id: { type: 'string' }, window: { type: 'integer', description: 'neighbours on each side (default 1)' } },
    required: ['fragment_id'],
  },
  async handler(args, c) {
    const kb = c.context.kb;
    const f = kb.fragment(String(args.fragment_id));
    if (!f) return notFound(args.fragment_id);
    const window = Math.min(3, Math.max(0, Math.floor(Number(args.window ?? 1)) || 0));
    const body = clip(f.text, KB_LIMITS.hitChars);
    const near = kb.neighbours(f.id, window);
    const neighbours = near.map((n) => ({ id: n.id, kind: n.kind, text: clip(n.text, KB_LIMITS.neighbourChars) }));
    const table = f.table ? { header: f.table.header, rows: f.table.rows.slice(0, KB_LIMITS.tableRows) } : undefined;
    c.context.reads.push({
      tool: 'fragment_context',
      fragmentIds: [f.id],
      note: `${f.id} (${kb.title(f.docId) ?? f.docId}${f.page !== undefined ? ` p.${f.page}` : ''}): ${clip(f.text, NOTE_CHARS)}`,
    });
    if (c.context.blockFormat === 'runner') return runnerFragmentContext(f, near);
    return {
      id: f.id,
      kind: f.kind,
      doc: kb.title(f.docId) ?? f.docId,
      page: f.page,
      section: f.section.join(' > '),
      ...(f.caption ? { caption: f.caption } : {}),
      text: body,
      ...(table ? { table } : {}),
      neighbours,
    };
  },
};

export const readMedia: Tool = {
  name: 'read_media',
  description:
    'Look at figures/tables (ids from the materials) and answer one question about them: where in the image, and a one-line answer. ' +
    `One asset per look, several looked at concurrently; at most ${MAX_MEDIA_PER_READ} ids per call by default (ids beyond the cap come back as skipped).`,
  parameters: {
    type: 'object',
    properties: { fragment_ids: { type: 'array', items: { type: 'string' } }, question: { type: 'string' } },
    required: ['fragment_ids', 'question'],
  },
  async handler(args, c) {
    const all = (Array.isArray(args.fragment_ids) ? args.fragment_ids : [args.fragment_ids]).map(String);
    const cap = c.context.readMediaMax ?? MAX_MEDIA_PER_READ;
    const question = String(args.question);
    const looked = await mapLimit(all.slice(0, cap), READ_CONCURRENCY, (id) => readOne(c.context, id, question));
    // Notes join the pool in the order the ids were given, whichever vision call returned first.
    for (const l of looked) if (l.read) c.context.reads.push(l.read);
    const answers = looked.map((l) => l.answer);
    if (c.context.blockFormat === 'runner') return runnerReadMedia(c.context, answers, all.slice(cap));
    return all.length > cap ? { answers, skipped: all.slice(cap) } : { answers };
  },
};

/** One asset of a read_media call: the vision answer and its reading note, or an error entry (unknown id, not a figure/table). */
async function readOne(context: KfToolContext, id: string, question: string): Promise<{ answer: ReadMediaEntry; read?: ReadLogEntry }> {
  const f = context.kb.fragment(id);
  if (!f) return { answer: { id, ...notFound(id) } };
  if (f.kind !== 'image' && f.kind !== 'table')
    return { answer: { id, error: { code: 'not_media', detail: `${id} is a ${f.kind} fragment: use fragment_context`, recoverable: true } } };
  const r = context.readMedia ? await context.readMedia(id, question) : { text: `Where: the stored description.\nAnswer: ${clip(f.text, 300)}` };
  const note = `${f.label ?? f.kind} ${id}${f.page !== undefined ? ` p.${f.page}` : ''}: ${clip(answerLine(r.text), NOTE_CHARS)}`;
  return { answer: { id, answer: r.text }, read: { tool: 'read_media', fragmentIds: [id], note } };
}

export const mediaContext: Tool = {
  name: 'media_context',
  description: 'The caption of a figure/table and the body text printed on its page.',
  parameters: { type: 'object', properties: { fragment_id: { type: 'string' } }, required: ['fragment_id'] },
  async handler(args, c) {
    const kb = c.context.kb;
    const f = kb.fragment(String(args.fragment_id));
    const runner = c.context.blockFormat === 'runner';
    if (!f) return runner ? runnerMediaContext(c.context, f, '') : notFound(args.fragment_id);
    if (runner && f.kind !== 'image' && f.kind !== 'table') return runnerMediaContext(c.context, f, '');
    // The view's media context (a hosted knowledge base: its media-context endpoint); else the page text gathered here.
    const mc = kb.mediaContext?.(f.id);
    const around = mc ? [] : kb.neighbours(f.id, 6).filter((n) => n.kind === 'text' && (f.page === undefined || n.page === f.page));
    const body = mc ? mc.pageText : clip(around.map((n) => n.text).join(' '), KB_LIMITS.hitChars);
    c.context.reads.push({
      tool: 'media_context',
      fragmentIds: [f.id],
      note: `${f.label ?? f.kind} ${f.id}: ${clip([f.caption, body].filter(Boolean).join(' — '), NOTE_CHARS)}`,
    });
    if (runner) return runnerMediaContext(c.context, f, body, mc?.siblings);
    return { id: f.id, label: f.label, caption: f.caption ?? null, page: f.page, text: body };
  },
};

export const READER_TOOLS: readonly Tool[] = [fragmentContext, readMedia, mediaContext];
