/**
 * Peak resident memory of this process, for the benchmark's per-size figures.
 * Linux: VmHWM from /proc/self/status, and writing "5" to /proc/self/clear_refs
 * resets it (so each size of a sweep reports its own peak). Elsewhere:
 * process.resourceUsage().maxRSS, which cannot be reset (the sweep's running peak).
 */
import * as fs from 'node:fs';

/** Reset the peak to the current RSS; false when the platform cannot (the peak then runs over the whole process). */
export function resetPeakRss(): boolean {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** Peak RSS in bytes since the last reset (or process start). */
export function peakRssBytes(): number {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    /* not Linux: fall through */
  }
  return process.resourceUsage().maxRSS * 1024;
}

/**
 * Peak RSS per stage of a run, in MB: each mark() closes a stage with the peak
 * since the previous mark and resets it, so a stage's figure is its own high-water
 * mark (what that stage added on top of what earlier stages left). Where the peak
 * cannot be reset (not Linux) each figure is the running peak since the process
 * started, and `resettable` says so.
 */
export class StagePeaks {
  readonly mb: Record<string, number> = {};
  readonly resettable: boolean;
  constructor() {
    this.resettable = resetPeakRss();
  }
  mark(stage: string): number {
    const peak = Math.max(peakRssBytes(), process.memoryUsage().rss) / (1024 * 1024);
    this.mb[stage] = Math.max(this.mb[stage] ?? 0, peak);
    resetPeakRss();
    return peak;
  }
}
