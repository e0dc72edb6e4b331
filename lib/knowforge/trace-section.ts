/**
 * KnowForge's lines of the printed trace (lib/pipeline/trace-section.ts): how its roles stopped, the
 * bridge judge's verdicts and the forced stops told to the synthesizer.
 */
import { traceClip as clip, type TraceEventFields, type TraceSection } from '../pipeline/trace-section';

const opt = (cond: unknown, text: string): string => (cond ? text : '');

function roleEnd(e: TraceEventFields, t: string): string {
  const refused = opt(e.counters?.outOfRole, `, ${e.counters?.outOfRole} out-of-role call(s) refused`);
  return `${t}${e.role} stopped: ${e.stopReason}${opt(e.forced, ' (forced)')} after ${e.rounds}/${e.maxRounds} rounds${refused}`;
}

function judge(e: TraceEventFields, t: string): string {
  const bad = opt(e.parseError, ` (unreadable: ${clip(e.parseError, 80)})`);
  const what = `entities ${JSON.stringify(e.bridgeEntities)}, runs ${JSON.stringify(e.toRun)}`;
  return `${t}bridge judge: need_more=${e.needMore}${bad}, ${what}: ${clip(e.reason, 120)}`;
}

export const KNOWFORGE_TRACE: TraceSection = {
  lines: {
    'role-end': roleEnd,
    judge,
    'forced-stop': (e, t) => `${t}FORCED STOP (told to the synthesizer): ${e.note}`,
  },
};
