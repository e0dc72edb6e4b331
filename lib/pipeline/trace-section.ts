/**
 * What a method adds to the printed trace (issue 30): `kf trace`, the progress lines of `kf ask` and
 * what both print after the events. The printer (lib/report/trace-format.ts) writes the events every
 * pipeline shares and asks the loaded plug-ins for the rest, so it names no method.
 */
import type { TraceEvent } from './types';

/** A trace event with its fields readable (events carry free-form fields per kind). */
export type TraceEventFields = TraceEvent & Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A value on one line, cut to n characters (an ellipsis marks the cut). */
export function traceClip(s: unknown, n: number): string {
  const t = String(s ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return t.length <= n ? t : `${t.slice(0, n - 1)}…`;
}

export interface TraceSection {
  /** One line per event of these kinds, after the time prefix `t` (e.g. '   1.20s '), at most about `width` characters. */
  lines?: Record<string, (e: TraceEventFields, t: string, width: number) => string | undefined>;
  /** A titled block printed after the answer (`kf ask`) and after the header (`kf trace`), when `text` finds something. */
  after?: { title: string; label: string; text(events: readonly TraceEvent[]): string | undefined };
}
