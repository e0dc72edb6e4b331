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
