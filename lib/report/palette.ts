/**
 * One colour per configuration, the same in every figure: a reader who learnt
 * "M5 is dark blue" in one chart must not find M5 in orange in the next.
 *
 * - The papers' configurations have fixed colours (families share a hue range:
 *   one-shot baselines in greys/browns, KnowForge agents in blues/greens, the
 *   round-cap sweep in a purple ramp, DualG-MRAG in reds/oranges).
 * - Any other name gets a colour from a spare list chosen by a hash of the name,
 *   so it is stable across figures and runs; two unknown names that collide in
 *   one figure are moved to the next free spare colour (the rest keep theirs).
 * - A name is matched after dropping a benchmark prefix ("demo-M5", "m3d-M5"
 *   and "M5" are one configuration) and a trailing note in parentheses.
 * - Published numbers are drawn in a neutral grey with a hatch, so they never
 *   look like one of our configurations.
 */
import { sha256 } from '../util/hash';

const FIXED: Record<string, string> = {
  // one-shot baselines
  S0: '#7f7f7f',
  S1: '#8c564b',
  S3: '#bcbd22',
  S4v1: '#c49c94',
  S4: '#e6a118',
  // KnowForge agent configurations
  M4: '#6baed6',
  M5: '#08519c',
  M5OFF: '#9ecae1',
  M5VEC: '#3182bd',
  M5S3: '#2ca089',
  P0: '#17becf',
  P1: '#31a354',
  // DualG-MRAG and its graph baselines
  DG: '#d62728',
  'DG-heuristic': '#ff7f0e',
  'DG-ppr': '#e377c2',
  'DG-nomacro': '#f4a582',
  'DG-nomicro': '#b2182b',
  'DG-nopaths': '#fdae6b',
};

/** The L+R round-cap sweep (L0R0 ... L6R6): a purple ramp by total rounds, so the sweep reads as an order. */
const ROUND_RAMP = ['#dadaeb', '#bcbddc', '#9e9ac8', '#807dba', '#6a51a3', '#54278f', '#3f007d'];

/** Spare colours for names the map does not know (none of them is in FIXED). */
const SPARE = ['#1f77b4', '#2ca02c', '#9467bd', '#aec7e8', '#98df8a', '#ff9896', '#c5b0d5', '#dbdb8d', '#9edae5', '#f7b6d2', '#637939', '#843c39'];

export const PUBLISHED_COLOUR = '#a0a0a0';

/** "demo-M5" -> "M5"; "M5 (offline)" -> "M5"; "2wiki: DG" -> "DG". */
export function configKey(name: string): string {
  let n = name.trim().replace(/\s*\(.*\)$/, '');
  const colon = n.lastIndexOf(': ');
  if (colon >= 0) n = n.slice(colon + 2);
  if (FIXED[n] !== undefined || /^L\dR\d$/.test(n)) return n;
  const dash = n.indexOf('-');
  const rest = dash > 0 ? n.slice(dash + 1) : n;
  return FIXED[rest] !== undefined || /^L\dR\d$/.test(rest) ? rest : n;
}

/** The fixed colour of a known configuration, or undefined. */
export function fixedColour(name: string): string | undefined {
  const k = configKey(name);
  if (FIXED[k]) return FIXED[k];
  const round = /^L(\d)R(\d)$/.exec(k);
  if (round) return ROUND_RAMP[Math.min(ROUND_RAMP.length - 1, Math.round((Number(round[1]) + Number(round[2])) / 2))];
  return undefined;
}

/** The colour of one name on its own (stable across figures). */
export function colourOf(name: string): string {
  return fixedColour(name) ?? SPARE[spareIndex(name)];
}

function spareIndex(name: string): number {
  return Number.parseInt(sha256(configKey(name)).slice(0, 8), 16) % SPARE.length;
}

/**
 * Colours for the names of one figure: known configurations keep their fixed
 * colour; unknown names keep their hashed colour unless another name of the same
 * figure already has it, then take the next free spare.
 */
export function coloursFor(names: readonly string[]): string[] {
  const used = new Set<string>();
  const out: string[] = [];
  for (const n of names) {
    const fixed = fixedColour(n);
    if (fixed) used.add(fixed);
  }
  const seen = new Map<string, string>();
  for (const n of names) {
    const key = configKey(n);
    const known = seen.get(key) ?? fixedColour(n);
    if (known) {
      out.push(known);
      seen.set(key, known);
      continue;
    }
    const start = spareIndex(n);
    let c = SPARE[start];
    for (let i = 1; used.has(c) && i < SPARE.length; i++) c = SPARE[(start + i) % SPARE.length];
    used.add(c);
    seen.set(key, c);
    out.push(c);
  }
  return out;
}
