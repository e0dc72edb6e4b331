/**
 * What `kf ask` prints after the pipeline ran, read from the answer and its
 * trace events: the cited evidence blocks ([N] / [fig N] resolved to fragments);
 * what a method adds (DualG-MRAG's decoded paths) comes from its plug-in's trace section. Every pipeline family traces its evidence
 * pool differently (the agent pipelines list the pool's blocks; the one-shot and
 * DualG pipelines give the pool's statistics and its rendered text), so both
 * shapes are read here.
 */
import type { TraceEvent } from '../pipeline/types';

interface PoolBlockRef {
  n: number;
  id: string;
  kind: string;
}

/** The prediction without its FINAL ANSWER line(s): ask prints that line itself, once. */
export function withoutFinalAnswerLine(prediction: string): string {
  return prediction
    .split('\n')
    .filter((l) => !/^\s*\**\s*final answer\s*\**\s*:/i.test(l))
    .join('\n')
    .trim();
}

/** Blocks of the last pool event that lists them (agent pipelines: `blocks` is an array of {n, id, kind}). */
function listedBlocks(events: readonly TraceEvent[]): Map<number, PoolBlockRef> | undefined {
  const pool = [...events].reverse().find((e) => e.kind === 'pool' && Array.isArray(e.blocks));
  if (!pool) return undefined;
  return new Map((pool.blocks as PoolBlockRef[]).map((b) => [b.n, b]));
}

/** Block number -> its first line, from the rendered pool text ("[3] ..." / "[fig 3] ..." starts a block). */
function renderedBlocks(poolText: string | undefined): Map<number, string> {
  const out = new Map<number, string>();
  for (const m of (poolText ?? '').matchAll(/^\[(?:fig )?(\d+)\] (.*)$/gm)) {
    const line = m[2].trim();
    out.set(Number(m[1]), line.length > 90 ? `${line.slice(0, 89)}…` : line);
  }
  return out;
}

/** [N] / [fig N] citations of the answer, each resolved to its fragment (or the head of its block). */
export function citedFragments(answer: string, events: readonly TraceEvent[], poolText?: string): string[] {
  const listed = listedBlocks(events);
  const rendered = listed ? undefined : renderedBlocks(poolText);
  const out: string[] = [];
  for (const m of answer.matchAll(/\[([^[\]\d\n]{1,12})?(\d+)\]/g)) {
    const n = Number(m[2]);
    const tag = `[${m[1] ?? ''}${m[2]}]`;
    const b = listed?.get(n);
    const head = rendered?.get(n);
    const line = b ? `${tag} ${b.id} (${b.kind})` : head ? `${tag} ${head}` : `${tag} (not in the pool)`;
    if (!out.includes(line)) out.push(line);
  }
  return out;
}
