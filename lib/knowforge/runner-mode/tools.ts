/**
 * Runner mode's tools over the knowledge-base API, results written as the released runner writes
 * them. Ported: search_knowledge and fragment_context. The others are in the catalogue the agents see
 * (as in the runner) but answer with a tool error naming the gap (a departure listed in
 * experiments/knowforge/README.md).
 */
import { fieldsOf, type LitPart } from './python-literals';
import { pyJsonDumps } from './python-values';
import { fill, missing, offsetOf, runAfter, type RunnerTexts } from './texts';
import type { Json, KbApi } from './kb-api';
import { searchListing, type RunnerMaterials } from './materials';
import type { LoopTool } from './loop';

export interface ToolState {
  kb: KbApi;
  builder: RunnerMaterials;
  queries: string[];
  searchLog: Json[];
}

const plain = (p: LitPart[]) => p.map((x) => (typeof x === 'string' ? x : '')).join('');
const squash = (s: unknown) =>
  String(s ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');

interface ToolTexts {
  emptyQuery: string;
  emptyFragment: string;
  markAnchor: string;
  markOther: string;
  mediaLine: LitPart[];
  fragmentHeader: string;
}

function toolTexts(t: RunnerTexts): ToolTexts {
  const marks = /mark = ("[^"]*") if f\.get\("anchor"\) else ("[^"]*")/.exec(t.materials.src);
  const media = t.materials.runs.find((r) => {
    const f = fieldsOf(r.parts);
    return f.length === 2 && f[0] === 'mark' && f[1].includes('media_path');
  });
  if (!marks || !media) throw missing(t.materials.file, 'the fragment-context marks');
  return {
    emptyQuery: plain(runAfter(t.tools, /raise ValueError\(/, offsetOf(t.tools, /def search_afn/)).parts),
    emptyFragment: plain(runAfter(t.tools, /raise ValueError\(/, offsetOf(t.tools, /def fragment_afn/)).parts),
    markAnchor: JSON.parse(marks[1]) as string,
    markOther: JSON.parse(marks[2]) as string,
    mediaLine: media.parts,
    fragmentHeader: plain(runAfter(t.materials, /block = /, offsetOf(t.materials, /def fragment_mat/)).parts),
  };
}

/** Python's int() of a JSON value (strings of digits, numbers truncated). */
function pyInt(v: unknown, dflt: number): number {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return dflt;
  const n = typeof v === 'string' ? Number(v.trim()) : Number(v);
  if (!Number.isFinite(n)) throw new Error(`invalid literal for int() with base 10: ${JSON.stringify(v)}`);
  return Math.trunc(n);
}

function fragmentListing(tt: ToolTexts, b: RunnerMaterials, data: Json): string {
  if (data.error) return pyJsonDumps({ error: { code: data.error, recoverable: true } });
  const ctx = (data.context ?? []) as Json[];
  const parts = ctx.map((f) => {
    const mark = f.anchor ? tt.markAnchor : tt.markOther;
    const isMedia = f.kind === 'image' || f.kind === 'table';
    const cap = f.anchor && isMedia ? undefined : f.anchor ? 1500 : 500;
    let seg = squash(f.text);
    if (cap) seg = [...seg].slice(0, cap).join('');
    let line = `${mark}${seg}`;
    if (isMedia && f.anchor && f.media_path) line += fill(tt.mediaLine, { mark, "f['media_path']": String(f.media_path) });
    return line;
  });
  return b.addPlain(
    tt.fragmentHeader + parts.join('\n'),
    ctx.map((f) => f.fragment_id),
  );
}

export function runnerTools(t: RunnerTexts, st: ToolState, names: string[]): LoopTool[] {
  const tt = toolTexts(t);
  const impl: Record<string, (args: Record<string, unknown>) => Promise<string>> = {
    async search_knowledge(args) {
      const query = String(args.query ?? '').trim();
      if (!query) throw new Error(tt.emptyQuery);
      const topk = pyInt(args.topk, 8);
      const data = await st.kb.search(query, topk);
      st.queries.push(query);
      st.searchLog.push({ call: st.searchLog.length, query, data });
      return searchListing(st.builder, data);
    },
    async fragment_context(args) {
      const fid = String(args.fragment_id ?? '').trim();
      if (!fid) throw new Error(tt.emptyFragment);
      const data = await st.kb.get('fragment-context', { fragment_id: fid, window: String(pyInt(args.window, 1)) });
      return fragmentListing(tt, st.builder, data);
    },
  };
  return names.map((name) => ({
    name,
    run:
      impl[name] ??
      (() => {
        throw new Error(`${name} is not ported to the harness's runner mode yet`);
      }),
  }));
}
