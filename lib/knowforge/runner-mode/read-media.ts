/**
 * Runner mode's read_media, as the released runner does it: each named figure or table fetched with
 * the knowledge base's `download` (a table comes back as its rendered image when the server has one)
 * and shown to the vision model with the checkout's READ_PROMPT, one image per call, capped at 1024
 * tokens, at most READ_CONCURRENCY calls at a time and READ_MEDIA_MAX ids per call (the rest listed as
 * skipped); then the answers written as the runner's materializer writes them.
 */
import type { ChatModel } from '../../model-api/types';
import { constant, fillSeq, fnRuns, missing, nthRun, offsetOf, runAfter, type RunnerTexts } from './texts';
import { fieldsOf, type LitPart } from './python-literals';
import type { Json, KbApi } from './kb-api';
import type { RunnerMaterials } from './materials';
import { plain, squash } from './listing-tools';

const cps = (s: string, n: number) => [...s].slice(0, n).join('');

/** str.format(question=...) of a template ({{ and }} are braces). */
function pyFormat(template: string, vars: Record<string, string>): string {
  return template.replace(/\{\{|\}\}|\{(\w+)\}/g, (m, name: string | undefined) => (m === '{{' ? '{' : m === '}}' ? '}' : (vars[name!] ?? m)));
}

function numbers(t: RunnerTexts): { max: number; concurrency: number } {
  const m = /^READ_MEDIA_MAX,\s*READ_CONCURRENCY\s*=\s*(\d+),\s*(\d+)/m.exec(t.tools.src);
  if (!m) throw missing(t.tools.file, 'READ_MEDIA_MAX, READ_CONCURRENCY');
  return { max: Number(m[1]), concurrency: Number(m[2]) };
}

interface ReadTexts {
  emptyIds: string;
  emptyQuestion: string;
  noFile: LitPart[];
  notImage: LitPart[];
  failed: LitPart[];
}

function readTexts(t: RunnerTexts): ReadTexts {
  const from = offsetOf(t.tools, /def read_media_afn/);
  const byFields = (f: string) => {
    const r = fnRuns(t.tools, 'read_media_afn').find((x) => {
      const fs = fieldsOf(x);
      return fs.length === 1 && fs[0] === f;
    });
    if (!r) throw missing(t.tools.file, `read_media's message with {${f}}`);
    return r;
  };
  const first = runAfter(t.tools, /raise ValueError\(/, from);
  return {
    emptyIds: plain(first.parts),
    emptyQuestion: plain(runAfter(t.tools, /raise ValueError\(/, first.end).parts),
    noFile: byFields('str(exc)[:120]'),
    notImage: byFields('mime'),
    failed: byFields('str(exc)[:200]'),
  };
}

/** Run `fns` with at most `n` at a time, results in order. */
async function limited<T>(n: number, fns: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(fns.length);
  let next = 0;
  const worker = async () => {
    while (next < fns.length) {
      const i = next++;
      out[i] = await fns[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, fns.length) }, worker));
  return out;
}

/** The ids of a read_media call: a list, or a comma-separated string (full-width commas too), or one fragment_id. */
function idsOf(args: Record<string, unknown>): string[] {
  let fids: unknown = args.fragment_ids;
  if (typeof fids === 'string')
    fids = fids
      .replace(/，/g, ',')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  if ((!fids || (Array.isArray(fids) && !fids.length)) && args.fragment_id) fids = [args.fragment_id];
  const list = Array.isArray(fids) ? fids : fids ? [...String(fids)] : [];
  return list.map((f) => String(f).trim()).filter(Boolean);
}

/** read_media's result: the question and one answer per id (skipped ids past the cap). */
export async function readMedia(t: RunnerTexts, kb: KbApi, vision: ChatModel, args: Record<string, unknown>, qid?: string): Promise<Json> {
  const rt = readTexts(t);
  const ids = idsOf(args);
  const question = String(args.question ?? '').trim();
  if (!ids.length) throw new Error(rt.emptyIds);
  if (!question) throw new Error(rt.emptyQuestion);
  const { max, concurrency } = numbers(t);
  const prompt = pyFormat(constant(t, 'READ_PROMPT'), { question });
  const fetched = await Promise.all(
    ids.slice(0, max).map(async (fid) => {
      try {
        return { fid, file: await kb.download(fid) };
      } catch (e) {
        return { fid, error: fillSeq(rt.noFile, [cps((e as Error).message, 120)]) };
      }
    }),
  );
  const answers = await limited(
    concurrency,
    fetched.map((x) => async (): Promise<Json> => {
      if (!x.file) return { fragment_id: x.fid, error: x.error };
      const { data, mime, name } = x.file;
      if (!mime.startsWith('image/')) return { fragment_id: x.fid, error: fillSeq(rt.notImage, [mime]) };
      let ans: string;
      try {
        const dataUrl = `data:${mime};base64,${data.toString('base64')}`;
        const content = [
          { type: 'text' as const, text: prompt },
          { type: 'image' as const, dataUrl },
        ];
        ans = (await vision.chat({ stage: 'vision', messages: [{ role: 'user', content }], temperature: 0, maxTokens: 1024, questionId: qid })).text ?? '';
      } catch (e) {
        return { fragment_id: x.fid, kind: 'image', name, error: fillSeq(rt.failed, [cps((e as Error).message, 200)]) };
      }
      const kind = (name || '').toLowerCase().includes('table') ? 'table' : 'image';
      return { fragment_id: x.fid, kind, name, path: `asset:${x.fid}`, answer: ans };
    }),
  );
  const out: Json = { question, answers };
  if (ids.length > max) out.skipped = ids.slice(max);
  return out;
}

/** read_media's answers as the agent reads them (and the block they add). */
export function readMediaListing(t: RunnerTexts, b: RunnerMaterials, data: Json): string {
  const m = t.materials;
  const r = fnRuns(m, 'read_media_mat');
  const at = (i: number, f: number) => nthRun(m, r, i, f, `read_media_mat text ${i}`);
  const lines: string[] = [];
  const s = (v: unknown) => (v === undefined || v === null ? 'None' : String(v));
  for (const x of (data.answers ?? []) as Json[]) {
    if (x.error) {
      lines.push(fillSeq(at(0, 2), [s(x.fragment_id), s(x.error)]));
      continue;
    }
    const path = String(x.path || '');
    let tag = [...b.images.entries()].find(([, im]) => (im.path || '') === path)?.[0];
    if (tag === undefined)
      tag = b.emitImage(path || fillSeq(at(3, 1), [s(x.fragment_id)]), fillSeq(at(4, 2), [String(x.name || ''), s(x.kind)])) ?? plain(at(5, 0));
    lines.push(fillSeq(at(6, 3), [tag, s(x.kind), cps(squash(x.answer || ''), 1200)]));
  }
  if (data.skipped?.length) lines.push(fillSeq(at(7, 1), [(data.skipped as unknown[]).map(String).join(', ')]));
  if (!lines.length) return plain(at(8, 0));
  return b.addPlain(
    plain(at(9, 0)) + lines.join('\n'),
    ((data.answers ?? []) as Json[]).map((x) => x.fragment_id),
  );
}
