/**
 * Which runs a notebook table or figure draws, so that its notes name the departures from the paper
 * (and the backend) of those runs only, not of every run the notebook registered (issue 32).
 *
 * A notebook says it with `nb.table(rows, name, { runs })` / `nb.figure(spec, name, { runs })`: labels,
 * run ids, LoadedRuns or the label -> run map runConfigurations returned. The kit helpers that build
 * rows from runs (summaryRows, pairedRows, usageRows, latencyRows, flagSplitRows, failureSample) tag
 * the rows they return with `drawing()`, and the session reads the tag, so a table straight from a
 * helper needs nothing typed. The tag is a symbol property: tables, CSV and JSON never show it, and
 * rows rebuilt with .map() lose it (the notebook passes `runs` then, or gets all its runs' notes).
 */
import type { LoadedRun } from '../run/results';

/** A run as a notebook names it: its label, its run id, or the loaded run. */
export type RunRef = string | LoadedRun;

/**
 * The runs a table or figure draws: a list of references, runConfigurations' label -> run map, or rows
 * a kit helper built (tagged by drawing(): a figure drawn from a helper's rows passes those rows).
 */
export type DrawnRuns = Iterable<RunRef> | ReadonlyMap<string, LoadedRun> | readonly object[];

const DRAWN = Symbol.for('kf-harness.drawnRuns');

/** The references of `runs` as a list (a map gives its runs, tagged rows the runs they were built from). */
export function runRefs(runs: DrawnRuns): RunRef[] {
  if (runs instanceof Map) return [...(runs as ReadonlyMap<string, LoadedRun>).values()];
  const tagged = drawnRuns(runs);
  if (tagged) return tagged;
  return [...(runs as Iterable<RunRef>)];
}

/** Tag rows (or a figure spec) with the runs they were built from; returns the same object. */
export function drawing<T extends object>(value: T, runs: DrawnRuns): T {
  Object.defineProperty(value, DRAWN, { value: runRefs(runs), enumerable: true, configurable: true, writable: true });
  return value;
}

/** The runs an object was tagged with by drawing(), or undefined when untagged. */
export function drawnRuns(value: unknown): RunRef[] | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const refs = (value as Record<symbol, unknown>)[DRAWN];
  return Array.isArray(refs) ? (refs as RunRef[]) : undefined;
}
