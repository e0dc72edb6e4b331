/**
 * How the agents used their round caps (the paper's Appendix C, Table 8): per
 * run, the share of questions whose Locator / Deep Reader spent every round it
 * was allowed (at cap), the share with no read at all, and the median and 90th
 * percentile of the rounds each role used. Read from the records' usage
 * counters (locatorRounds, readerRounds, reads), which the pipeline fills from
 * each role's transcript; failed questions are left out.
 */
import type { LoadedRun } from '../../run/results';
import { percentile } from '../../util/percentile';

export interface RoundCaps {
  /** Locator round cap L. */
  locator: number;
  /** Deep Reader round cap R. */
  reader: number;
}

export type CapUsageRow = Record<string, string | number | null>;

const pct = (x: number) => Math.round(x * 1000) / 10;

/** "4+4" / "L4R4" -> caps; undefined for another label. */
export function capsOfLabel(label: string): RoundCaps | undefined {
  const m = /^(?:L)?(\d+)(?:\+|R)(\d+)\b/.exec(label.trim());
  return m ? { locator: Number(m[1]), reader: Number(m[2]) } : undefined;
}

function roleColumns(prefix: string, used: number[], cap: number): CapUsageRow {
  if (!used.length) return { [`${prefix} at cap %`]: null, [`${prefix} p50`]: null, [`${prefix} p90`]: null };
  return {
    // A cap of 0 means the role did not run: "at cap" is not a finding there.
    [`${prefix} at cap %`]: cap > 0 ? pct(used.filter((r) => r >= cap).length / used.length) : null,
    [`${prefix} p50`]: percentile(used, 0.5),
    [`${prefix} p90`]: percentile(used, 0.9),
  };
}

/** One row per run: caps, questions, at-cap shares, zero-read share, p50/p90 of rounds used per role. */
export function capUsageRows(runs: Map<string, LoadedRun>, capsOf: (label: string) => RoundCaps | undefined = capsOfLabel): CapUsageRow[] {
  const rows: CapUsageRow[] = [];
  for (const [label, run] of runs) {
    const caps = capsOf(label);
    if (!caps) continue;
    const recs = run.records.filter((r) => !r.error);
    const counter = (key: string) => recs.map((r) => r.counters?.[key] ?? 0);
    rows.push({
      config: label,
      L: caps.locator,
      R: caps.reader,
      n: recs.length,
      ...roleColumns('locator', counter('locatorRounds'), caps.locator),
      ...roleColumns('reader', counter('readerRounds'), caps.reader),
      'zero reads %': recs.length ? pct(counter('reads').filter((x) => x === 0).length / recs.length) : null,
    });
  }
  return rows;
}
