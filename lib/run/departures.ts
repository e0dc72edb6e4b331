/**
 * Departures from the paper, per run: every stand-in, fallback and variant the run used, with counts
 * ("DualG: answered from hybrid fallback: 14 of 60 questions", "fitted embedder instead of an embeddings
 * endpoint", "offline descriptions for 37 fragments", "token-embedding F1, not BERTScore"). Listed in the
 * manifest, printed in the run's outcome and in SUMMARY.md; per-question ones come from the records
 * (RunRecord.departures).
 */
import type { StageRoute } from '../models/stage-route';
import type { ExperimentConfig } from './config';
import type { IndexInfo } from './index-types';

export interface Departure {
  what: string;
  /** Questions it happened on (per-question departures), out of `of` recorded. */
  count?: number;
  of?: number;
}

export function departureText(d: Departure): string {
  return d.count !== undefined ? `${d.what}: ${d.count} of ${d.of} questions` : d.what;
}

/** The run's stand-ins that hold for every question: backend, embedder, index build, DualG's rule stages, metric substitutes. */
function standIns(x: {
  config: ExperimentConfig;
  routes: readonly Pick<StageRoute, 'stage' | 'backend'>[];
  index?: IndexInfo;
  readsIndex: boolean;
  embedder?: string;
}): string[] {
  const out: string[] = [];
  const answering = x.routes.filter((r) => r.stage !== 'embedding');
  const offline = answering.filter((r) => r.backend === 'offline').map((r) => r.stage);
  if (offline.length && offline.length === answering.length) out.push('offline backend: rule-based stand-ins for every model stage (not model results)');
  else if (offline.length) out.push(`offline stand-ins for stages ${offline.join(', ')} (not model results)`);
  const ix = x.config.index;
  const embedder = x.embedder ?? ix?.embedder;
  if (x.readsIndex && ix && !ix.kb && embedder !== 'openai')
    out.push(`${embedder} embedder instead of an embeddings endpoint (dense retrieval is a stand-in; KF_EMBED_BASE_URL + KF_EMBED_MODEL give the paper's)`);
  const info = x.index;
  if (info?.offline && offline.length < answering.length)
    out.push('index built by offline rules (knowledge points, relations, media descriptions), not a model');
  const desc = info?.descriptions;
  if (desc && desc.offline > 0 && (desc.by === 'model' || !info?.offline)) out.push(`offline descriptions for ${desc.offline} fragments`);
  if (x.config.benchmark.name === 'webqa') out.push('token-embedding F1 (tokenEmbF1), not BERTScore');
  return out;
}

export function runDepartures(x: {
  config: ExperimentConfig;
  routes: readonly Pick<StageRoute, 'stage' | 'backend'>[];
  index?: IndexInfo;
  readsIndex: boolean;
  /** The embedder the index is searched with (lib/run/endpoint-defaults.ts). */
  embedder?: string;
  perQuestion: ReadonlyMap<string, number>;
  recorded: number;
}): Departure[] {
  const out: Departure[] = standIns(x).map((what) => ({ what }));
  for (const [what, count] of [...x.perQuestion].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) out.push({ what, count, of: x.recorded });
  return out;
}

/** Footnote lines for a table over these runs: each run's departures (name: list), from its manifest. */
export function departureNotes(runs: readonly { runId: string; manifest?: { departures?: Departure[] } }[], names?: readonly string[]): string[] {
  return runs.flatMap((r, i) => {
    const deps = r.manifest?.departures ?? [];
    return deps.length ? [`departures from the paper, ${names?.[i] ?? r.runId}: ${deps.map(departureText).join('; ')}`] : [];
  });
}

/** One short caption line for a figure over these runs: the distinct departures (without counts), or undefined. */
export function departureCaption(runs: readonly { manifest?: { departures?: Departure[] } }[], max = 240): string | undefined {
  const all = [...new Set(runs.flatMap((r) => (r.manifest?.departures ?? []).map((d) => d.what)))];
  if (!all.length) return undefined;
  const text = `departures from the paper: ${all.join('; ')}`;
  return text.length > max ? `${text.slice(0, max - 40).replace(/;[^;]*$/, '')}; ... (SUMMARY.md lists all, with counts)` : text;
}
