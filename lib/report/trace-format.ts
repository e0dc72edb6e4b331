/**
 * A question's trace, readable: one line per event (time, stage, what
 * happened), for `kf trace`, the progress lines of `kf ask` and its closing
 * summary. Works on any pipeline's trace; the events a method adds get the lines its plug-in's
 * trace section writes (lib/pipeline/trace-section.ts), the rest a generic line.
 */
import type { TraceEvent } from '../pipeline/types';
import { loadedPlugins } from '../pipeline/plugins';
import { traceClip as clip, type TraceEventFields, type TraceSection } from '../pipeline/trace-section';

/** The trace sections of the loaded plug-ins, with their names. */
export function traceSections(): { plugin: string; section: TraceSection }[] {
  return loadedPlugins().flatMap((p) => (p.trace ? [{ plugin: p.name, section: p.trace }] : []));
}

/** The blocks the plug-ins print after a trace's events (DualG: its decoded paths), those that find something. */
export function afterBlocks(events: readonly TraceEvent[]): { title: string; label: string; text: string }[] {
  return traceSections().flatMap(({ section }) => {
    const text = section.after?.text(events);
    return section.after && text ? [{ title: section.after.title, label: section.after.label, text }] : [];
  });
}

function methodLine(e: Ev, t: string, w: number): string | undefined {
  for (const { section } of traceSections()) {
    const line = section.lines?.[e.kind];
    if (line) return line(e, t, w);
  }
  return `${t}${e.kind}: ${clip(JSON.stringify({ ...e, t: undefined, kind: undefined }), w)}`;
}

type Ev = TraceEventFields;

const opt = (cond: unknown, text: string): string => (cond ? text : '');

function modelCallLine(e: Ev, w: number): string {
  const what = e.toolCalls?.length ? e.toolCalls.map((c: { name: string; arguments: string }) => `${c.name}(${c.arguments})`).join(', ') : e.reply;
  const head = `${e.role}#${e.round} model ${e.model}${opt(e.backend === 'offline', ' (offline)')} ${e.latencyMs}ms${opt(e.cacheHit, ' cached')}`;
  return `${head} tokens ${e.promptTokens}+${e.completionTokens}: ${clip(what, w)}`;
}

function poolLine(e: Ev): string {
  const was = opt(e.before, ` (was ${e.before?.blocks}/${e.before?.chars})`);
  const evicted = opt(e.evictedIds?.length, `, evicted ${e.evictedIds?.length}: ${(e.evictedIds ?? []).slice(0, 6).join(', ')}`);
  return `pool after ${e.stage ?? 'search'}: ${e.after?.blocks ?? e.blocks} blocks, ${e.after?.chars ?? e.chars} chars${was}${evicted}`;
}

/** One line for an event, or undefined for events shown elsewhere (model-call totals duplicate model-call-detail). */
export function eventLine(e: Ev, opts: { width?: number } = {}): string | undefined {
  const w = opts.width ?? 140;
  const t = typeof e.t === 'number' ? `${(e.t / 1000).toFixed(2).padStart(7)}s ` : '';
  switch (e.kind) {
    case 'model-call-detail':
      return `${t}${modelCallLine(e, w)}`;
    case 'model-call':
      return undefined;
    case 'step': {
      if (e.step === 'tool') return `${t}  ${e.role} ${e.tool}(${clip(JSON.stringify(e.args), 80)}) -> ${clip(e.result, w - 40)}`;
      const detail = e.result ? `: ${clip(e.result, w - 30)}` : opt(e.thought, `: ${clip(e.thought, w - 30)}`);
      return `${t}  ${e.role} ${e.step}${opt(e.tool, ` ${e.tool}`)}${detail}`;
    }
    case 'search': {
      const ids = (e.hits ?? []).slice(0, 5).map((h: { id: string }) => h.id);
      return `${t}search [${e.by}] "${clip(e.query, 80)}" (${e.mode}) -> ${ids.join(', ')}${opt((e.hits?.length ?? 0) > 5, ` +${(e.hits?.length ?? 0) - 5}`)}`;
    }
    case 'pool':
      return `${t}${poolLine(e)}`;
    case 'pool-notes':
      return `${t}pool + ${e.added} reading note(s)`;
    case 'synth':
      return `${t}synthesizer${opt(e.toldStops, ` (told ${e.toldStops} stop(s))`)}: FINAL ANSWER ${JSON.stringify(e.final ?? null)}`;
    case 'checker': {
      const bad = opt(e.parseError, ` (unreadable reply kept the answer: ${clip(e.parseError, 60)})`);
      return `${t}checker: ${JSON.stringify(e.final)}${opt(e.changed, ' (rewritten)')}${bad}`;
    }
    case 'timing':
      return `${t}first event ${e.firstEventMs} ms, answer started ${e.answerStartMs} ms, total ${e.totalMs} ms`;
    case 'error':
      return `${t}ERROR ${e.code}: ${clip(e.message, w)}`;
    default:
      return methodLine(e, t, w);
  }
}

/** The whole trace as text (header, events, counters). */
export function formatTrace(
  doc: { id?: string; runId?: string; pipeline?: string; events?: Ev[]; counters?: Record<string, number>; error?: unknown },
  opts: { width?: number } = {},
): string {
  const lines = [`question ${doc.id ?? '?'}${doc.pipeline ? ` · pipeline ${doc.pipeline}` : ''}${doc.runId ? ` · run ${doc.runId}` : ''}`];
  for (const e of doc.events ?? []) {
    const l = eventLine(e, opts);
    if (l) lines.push(l);
  }
  if (doc.counters && Object.keys(doc.counters).length)
    lines.push(
      `counters: ${Object.entries(doc.counters)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    );
  if (doc.error) lines.push(`error: ${JSON.stringify(doc.error)}`);
  return lines.join('\n');
}

/** A few lines: calls per stage, searches, reads, forced stops, times. */
export function traceSummary(events: Ev[]): string {
  const calls: Record<string, number> = {};
  for (const e of events) if (e.kind === 'model-call') calls[e.stage] = (calls[e.stage] ?? 0) + 1;
  const searches = events.filter((e) => e.kind === 'search');
  const reads = events.filter((e) => e.kind === 'step' && e.step === 'tool' && ['read_media', 'fragment_context', 'media_context'].includes(e.tool));
  const stops = events.filter((e) => e.kind === 'forced-stop').map((e) => e.note);
  const timing = events.find((e) => e.kind === 'timing');
  return [
    `model calls: ${
      Object.entries(calls)
        .map(([s, n]) => `${s} ${n}`)
        .join(', ') || 'none'
    }`,
    `searches: ${searches.length} (${searches.filter((e) => e.by === 'bridge').length} bridge); reads: ${reads.length}`,
    stops.length ? `forced stops: ${stops.join(' | ')}` : 'forced stops: none',
    timing ? `time: first event ${timing.firstEventMs} ms, answer start ${timing.answerStartMs} ms, total ${timing.totalMs} ms` : '',
  ]
    .filter(Boolean)
    .join('\n');
}
